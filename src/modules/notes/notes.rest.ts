import { exportRoute, listDocument, routes, restoreRoute } from '../../rest/route.js';
import { NOTE_LIST } from './notes.input.js';

// `author_id` and the id arrays are the request's (API.md section 12); the answer shows `author` and `targets`.
const NOTE = 'fragment NoteFields on Note { id body pinned author { id name } targets { type id title } createdAt updatedAt }';

export const noteRoutes = routes(
  {
    method: 'GET',
    path: '/notes',
    document: `${listDocument(NOTE_LIST, 'notes', 'NoteFilter', '...NoteFields')} ${NOTE}`,
  },
  // Declared before /notes/{id}, and literal segments win anyway. A row names its links by the
  // request's id arrays (so an export imports back with them), not by the answer's list of targets.
  exportRoute(NOTE_LIST, 'notes', 'NoteFilter', 'id body pinned authorId author { id name } createdAt updatedAt contactIds companyIds dealIds', ''),
  { method: 'GET', path: '/notes/{id}', document: `query ($id: ID!) { note(id: $id) { ...NoteFields } } ${NOTE}` },
  { method: 'POST', path: '/notes', document: `mutation ($input: CreateNoteInput!) { createNote(input: $input) { ...NoteFields } } ${NOTE}` },
  { method: 'PUT', path: '/notes/{id}', document: `mutation ($id: ID!, $input: UpdateNoteInput!) { updateNote(id: $id, input: $input) { ...NoteFields } } ${NOTE}` },
  { method: 'DELETE', path: '/notes/{id}', document: 'mutation ($id: ID!) { deleteNote(id: $id) }' },
  restoreRoute('notes', 'restoreNote', NOTE),
);
