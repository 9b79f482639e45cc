import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { uniqueValue } from '../../validation/unique.js';
import { USER_LIST, CreateUserInput, UpdateUserInput, UserListArgs } from './users.input.js';

export const User = builder.prismaObject('User', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deals: t.relation('deals', { ...pagedRelation(t, { id: 'asc' }) }),
    ownedTasks: t.relation('ownedTasks', { ...pagedRelation(t, [{ position: 'asc' }, { id: 'asc' }]) }),
    assignedTasks: t.relation('assignedTasks', { ...pagedRelation(t, [{ position: 'asc' }, { id: 'asc' }]) }),
  }),
});

const UserPage = pageType('User', User);

const UserInputs = createAndUpdateInputs('User', { create: CreateUserInput, update: UpdateUserInput }, (t) => ({ name: t.string(), email: t.string() }));

const UserFilter = builder.inputType('UserFilter', {
  fields: (t) => ({ email: t.string({ description: 'Exact e-mail address (case-insensitive).' }) }),
});

const uniqueEmail = uniqueValue('email', CreateUserInput.shape.email, (ctx, email) => ctx.db.user.findFirst({ where: { email }, select: { id: true } }));

builder.queryFields((t) => ({
  user: t.prismaField({
    type: User,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.user.findUnique({ ...query, where: { id } }), 'User'),
  }),
  users: t.field({
    type: UserPage,
    args: { ...listArgs(t, USER_LIST), filter: t.arg({ type: UserFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { email, ...listing } = parseInput(UserListArgs, { ...args.filter, ...listInput(args) }, ctx);
      return paginate(ctx.db.user, USER_LIST, { ...listing, where: { email: email?.toLowerCase() } }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.prismaField({
    type: User,
    args: { input: t.arg({ type: UserInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = await parseInputReportingAll(CreateUserInput, input, ctx, () => uniqueEmail.probe(ctx, input.email));
      return ctx.db.user.create({ ...query, data: { ...data, ...newRow(ctx.workspace.id) } }).catch((e) => Promise.reject(uniqueEmail.taken(e)));
    },
  }),
  updateUser: t.prismaField({
    type: User,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UserInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.user.findUnique({ where: { id }, select: { id: true } }))) throw notFound('User');
      const data = await parseInputReportingAll(UpdateUserInput, input, ctx, () => uniqueEmail.probe(ctx, input.email, id));
      return ctx.db.user.update({ ...query, where: { id }, data }).catch((e) => Promise.reject(uniqueEmail.taken(e)));
    },
  }),
  deleteUser: t.id({
    description: 'Refused (BAD_USER_INPUT on id) while the user owns deals.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.user, id, 'User', 'The user owns deals: reassign them first.'),
  }),
}));
