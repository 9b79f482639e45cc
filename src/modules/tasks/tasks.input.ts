import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { calendarDate, idList, longText, text } from '../../validation/rules.js';

export const TASK_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

const fields = {
  title: text(255),
  description: longText().nullable(),
  dueDate: calendarDate().nullable(),
  isDone: z.boolean(),
  priority: z.enum(TASK_PRIORITIES),
  ownerIds: idList(),
  assigneeIds: idList(),
};

export const CreateTaskInput = z
  .object(fields)
  .partial({ description: true, dueDate: true, isDone: true, priority: true, ownerIds: true, assigneeIds: true });
export const UpdateTaskInput = z.object(fields).partial();

/** The list's sorting (API.md section 8). */
export const TASK_LIST = listSpec('tasks', 'Task', ['due_date', 'priority', 'position'], 'position');

export const TaskListArgs = z.object({
  ...listRules,
  isDone: z.boolean().optional(),
  assigneeId: z.string().max(64).optional(),
});
