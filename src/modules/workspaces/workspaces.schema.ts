import { builder } from '../../graphql/builder.js';
import { inputTypeFrom } from '../../graphql/inputs.js';
import { parseInput } from '../../validation/parse.js';
import { UpdateWorkspaceInput } from './workspaces.input.js';

export const Workspace = builder.prismaObject('Workspace', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    defaultCurrency: t.exposeString('defaultCurrency', { description: "ISO 4217; a deal's currency and a payment link's default." }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const UpdateWorkspaceInputType = inputTypeFrom('UpdateWorkspaceInput', UpdateWorkspaceInput, (t) => ({
  defaultCurrency: t.string(),
}));

builder.queryFields((t) => ({
  workspace: t.prismaField({
    type: Workspace,
    description: "The calling key's workspace.",
    // The scoped client adds the caller's workspace id to the filter.
    resolve: (query, _root, _args, ctx) => ctx.db.workspace.findFirstOrThrow({ ...query }),
  }),
}));

builder.mutationFields((t) => ({
  updateWorkspace: t.prismaField({
    type: Workspace,
    description: "Changes the calling key's workspace settings.",
    args: { input: t.arg({ type: UpdateWorkspaceInputType, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = parseInput(UpdateWorkspaceInput, input, ctx);
      const updated = await ctx.db.workspace.update({ ...query, where: { id: ctx.workspace.id }, data });
      // ctx.workspace is what this process remembers about the key (src/auth/api-keys.ts): its
      // next requests see the change at once; other keys and processes within KEY_RECHECK_MS.
      ctx.workspace.defaultCurrency = updated.defaultCurrency;
      return updated;
    },
  }),
}));
