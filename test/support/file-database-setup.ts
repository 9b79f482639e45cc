import { afterAll, beforeAll } from 'vitest';
import { copyOfTemplate, fileDatabase, setFileDatabase } from './file-database.js';
import { closeSnapshotConnections } from './snapshot.js';

// A setup file (vitest.config.ts): runs before every test file, so each gets a database of its own.
beforeAll(async () => {
  setFileDatabase(await copyOfTemplate());
});

afterAll(async () => {
  const done = fileDatabase();
  setFileDatabase(undefined);
  await closeSnapshotConnections();
  await done?.drop();
});
