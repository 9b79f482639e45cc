import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import type { Context } from '../../graphql/context.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { linkIds, unknownIds, writeReferencing } from '../../validation/ids.js';
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

const TaskInputs = createAndUpdateInputs('Task', { create: CreateTaskInput, update: UpdateTaskInput }, (t) => ({
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

builder.mutationFields((t) => ({
  createTask: t.prismaField({
    type: Task,
    args: { input: t.arg({ type: TaskInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const { ownerIds, assigneeIds, ...data } = parseInput(CreateTaskInput, input, ctx, ...(await checks(ctx, input)));
      // Last in the workspace: the workspace row is locked before the maximum is read, so concurrent creates take turns and positions are unique.
      return writeReferencing(() => checks(ctx, input), () => atomically(ctx.db, async (tx) => {
        await lockRow(tx, 'workspace', ctx.workspace.id);
        const { _max } = await tx.task.aggregate({ _max: { position: true } });
        return tx.task.create({
          ...query,
          data: {
            ...data,
            ...newRow(ctx.workspace.id),
            position: (_max.position ?? 0) + 1,
            owners: linkIds(ownerIds, 'connect'),
            assignees: linkIds(assigneeIds, 'connect'),
          },
        });
      }));
    },
  }),
  updateTask: t.prismaField({
    type: Task,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TaskInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.task.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Task');
      const { ownerIds, assigneeIds, ...data } = parseInput(UpdateTaskInput, input, ctx, ...(await checks(ctx, input)));
      if (ownerIds === undefined && assigneeIds === undefined) return ctx.db.task.update({ ...query, where: { id }, data });
      // Replacing a set locks the task first: concurrent replacements take turns.
      return writeReferencing(() => checks(ctx, input), () => atomically(ctx.db, async (tx) => {
        await lockRow(tx, 'task', id);
        return tx.task.update({ ...query, where: { id }, data: { ...data, owners: linkIds(ownerIds, 'set'), assignees: linkIds(assigneeIds, 'set') } });
      }));
    },
  }),
  deleteTask: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.task, id, 'Task'),
  }),
}));
