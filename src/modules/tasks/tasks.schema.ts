import { type Tx, atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import type { z } from 'zod';
import { Batch, type NewRow, inOrder, insertInRuns } from '../../graphql/batch.js';
import { builder } from '../../graphql/builder.js';
import { moveToTrash } from '../trash/trash.js';
import { batchInputs } from '../../graphql/inputs.js';
import type { Context } from '../../graphql/context.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { orNotFound } from '../../graphql/records.js';
import { linkIds, preload, unknownIds, writeReferencing } from '../../validation/ids.js';
import { parseInput } from '../../validation/parse.js';
import { TASK_LIST, CreateTaskInput, TASK_PRIORITIES, TaskListArgs, UpdateTaskInput } from './tasks.input.js';

export const TaskPriorityEnum = builder.enumType('TaskPriority', { values: TASK_PRIORITIES });

/** Tasks read in this order everywhere: position, then id (creation order breaks ties). */
export const TASK_ORDER = [{ position: 'asc' as const }, { id: 'asc' as const }];

export const Task = builder.prismaObject('Task', {
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    isDone: t.exposeBoolean('isDone'),
    priority: t.field({ type: TaskPriorityEnum, resolve: (task) => task.priority as (typeof TASK_PRIORITIES)[number] }),
    position: t.exposeInt('position', { description: 'Set by the server: a new task goes last.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    owners: t.relation('owners', { ...pagedRelation(t, { id: 'asc' }) }),
    assignees: t.relation('assignees', { ...pagedRelation(t, { id: 'asc' }) }),
  }),
});

const TaskPage = pageType('Task', Task);

const TaskInputs = batchInputs('Task', 'Tasks', { create: CreateTaskInput, update: UpdateTaskInput }, (t) => ({
  title: t.string(),
  description: t.string(),
  dueDate: t.field({ type: 'Date' }),
  isDone: t.boolean(),
  priority: t.field({ type: TaskPriorityEnum }),
  ownerIds: t.idList({ description: 'Users; replaces the whole set when present.' }),
  assigneeIds: t.idList({ description: 'Users; replaces the whole set when present.' }),
}));

const TaskFilter = builder.inputType('TaskFilter', {
  fields: (t) => ({
    isDone: t.boolean(),
    assigneeId: t.id({ description: 'Tasks assigned to this user.' }),
  }),
});

type TaskInputShape = typeof TaskInputs.update.$inferInput;

/** Every owner and assignee must be a user of the workspace. */
const checks = (ctx: Context, input: TaskInputShape) =>
  Promise.all([unknownIds(ctx.db.user, input.ownerIds, 'owner_ids'), unknownIds(ctx.db.user, input.assigneeIds, 'assignee_ids')]);


builder.queryFields((t) => ({
  task: t.prismaField({
    type: Task,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.task.findUnique({ ...query, where: { id } }), 'Task'),
  }),
  tasks: t.field({
    type: TaskPage,
    args: { ...listArgs(t, TASK_LIST), filter: t.arg({ type: TaskFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { isDone, assigneeId, ...listing } = parseInput(TaskListArgs, { ...args.filter, ...listInput(args) }, ctx);
      const where = { isDone, ...(assigneeId !== undefined ? { assignees: { some: { id: assigneeId } } } : {}) };
      return paginate(ctx.db.task, TASK_LIST, { ...listing, where }, ctx, info);
    },
  }),
}));

/** Parses a task input against its rules and the database (owner and assignee ids). */
async function validTask<S extends z.ZodType>(ctx: Context, input: TaskInputShape, schema: S): Promise<z.output<S>> {
  return parseInput(schema, input, ctx, ...(await checks(ctx, input)));
}

/** A new task's row at `position`, and the users it links (none: undefined). */
function newTask(ctx: Context, valid: z.output<typeof CreateTaskInput>, position: number) {
  const { ownerIds, assigneeIds, ...data } = valid;
  const row = { ...data, ...newRow(ctx.workspace.id), position };
  return { row, links: ownerIds?.length || assigneeIds?.length ? { ownerIds, assigneeIds } : undefined } satisfies NewRow<typeof row, unknown>;
}

type TaskLinks = { ownerIds?: string[]; assigneeIds?: string[] };
const insertTask = (tx: Tx, row: ReturnType<typeof newTask>['row'], links: TaskLinks = {}, query: object = {}) =>
  tx.task.create({ ...query, data: { ...row, owners: linkIds(links.ownerIds, 'connect'), assignees: linkIds(links.assigneeIds, 'connect') } });

/**
 * The position after the workspace's last task: new tasks go last, in input order. The
 * workspace row is locked before the maximum is read, so concurrent creates take turns
 * and positions are unique.
 */
async function nextPosition(tx: Tx, workspaceId: string): Promise<number> {
  await lockRow(tx, 'workspace', workspaceId);
  const { _max } = await tx.task.aggregate({ _max: { position: true } });
  return (_max.position ?? 0) + 1;
}

/** A partial update, after `validTask`; owner and assignee ids replace their sets. */
function applyToTask(ctx: Context, id: string, input: TaskInputShape, valid: z.output<typeof UpdateTaskInput>, query: object = {}) {
  const { ownerIds, assigneeIds, ...data } = valid;
  if (ownerIds === undefined && assigneeIds === undefined) return ctx.db.task.update({ ...query, where: { id }, data });
  // Replacing a set locks the task first: concurrent replacements take turns.
  return writeReferencing(() => checks(ctx, input), () => atomically(ctx.db, async (tx) => {
    await lockRow(tx, 'task', id);
    return tx.task.update({ ...query, where: { id }, data: { ...data, owners: linkIds(ownerIds, 'set'), assignees: linkIds(assigneeIds, 'set') } });
  }));
}

builder.mutationFields((t) => ({
  createTask: t.prismaField({
    type: Task,
    args: { input: t.arg({ type: TaskInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const valid = await validTask(ctx, input, CreateTaskInput);
      return writeReferencing(() => checks(ctx, input), () => atomically(ctx.db, async (tx) => {
        const { row, links } = newTask(ctx, valid, await nextPosition(tx, ctx.workspace.id));
        return insertTask(tx, row, links, query);
      }));
    },
  }),
  updateTask: t.prismaField({
    type: Task,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TaskInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.task.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Task');
      return applyToTask(ctx, id, input, await validTask(ctx, input, UpdateTaskInput), query);
    },
  }),
  // Batches (API.md section 8): all or nothing in the mutation's transaction (src/graphql/batch.ts).
  createTasks: t.prismaField({
    type: [Task],
    description: 'Creates 1 to 100 tasks (last, in input order), all or none: any refused item refuses the batch, with every problem of every item as `inputs.<i>.<field>`.',
    args: { inputs: t.arg({ type: [TaskInputs.create], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      await preload(ctx.db.user, inputs.flatMap((input) => [...(input.ownerIds ?? []), ...(input.assigneeIds ?? [])]));
      const valid = batch.accepted(await batch.validate(ctx, (item, input) => validTask(item, input, CreateTaskInput)));
      // Joins the mutation's transaction.
      const ids = await atomically(ctx.db, async (tx) => {
        const first = await nextPosition(tx, ctx.workspace.id);
        return insertInRuns(
          valid.map((v, index) => newTask(ctx, v, first + index)),
          { createMany: (data) => tx.task.createMany({ data }), create: (row, links) => insertTask(tx, row, links, { select: { id: true } }) },
        );
      });
      return inOrder(ctx.db.task.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  updateTasks: t.prismaField({
    type: [Task],
    description: 'Updates 1 to 100 tasks (each item names its `id`), all or none.',
    args: { inputs: t.arg({ type: [TaskInputs.updateItem], required: true }) },
    resolve: async (query, _root, { inputs }, ctx) => {
      const batch = Batch.of(inputs);
      const ids = inputs.map((input) => input.id);
      batch.knownIds(ids, new Set((await ctx.db.task.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((task) => task.id)));
      await preload(ctx.db.user, inputs.flatMap((input) => [...(input.ownerIds ?? []), ...(input.assigneeIds ?? [])]));
      const valid = batch.accepted(await batch.validate(ctx, (item, input) => validTask(item, input, UpdateTaskInput)));
      for (const [index, input] of inputs.entries()) await applyToTask(ctx, input.id, input, valid[index]!);
      return inOrder(ctx.db.task.findMany({ ...query, where: { id: { in: ids } } }), ids);
    },
  }),
  deleteTask: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => moveToTrash(ctx, 'tasks', id),
  }),
}));
