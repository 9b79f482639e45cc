import { delegateNamed } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { inputTypeFrom } from '../../graphql/inputs.js';
import { orNotFound } from '../../graphql/records.js';
import { parseInput } from '../../validation/parse.js';
import { Company } from '../companies/companies.schema.js';
import { Contact } from '../contacts/contacts.schema.js';
import { MergeInput } from './merge.input.js';
import { type MergedType, mergeRecords } from './merge.js';

const MergeInputType = inputTypeFrom('MergeInput', MergeInput, (t) => ({
  sourceIds: t.idList({ description: '1 to 10 records of the same resource: their links move here, their values fill what is empty here, and they go to the trash.' }),
}));

/** `merge<Plural>(id, input)`: the record merged into, as its GET answers it. */
function mergeField(type: MergedType, name: string, ref: Parameters<typeof builder.objectFields>[0], delegate: 'contact' | 'company') {
  builder.mutationField(`merge${name}`, (t) =>
    t.prismaField({
      type: ref as never,
      description: `Folds duplicates into the ${delegate} \`id\`, in one transaction (API.md section 12).`,
      args: { id: t.arg.id({ required: true }), input: t.arg({ type: MergeInputType, required: true }) },
      resolve: async (query, _root, { id, input }, ctx) => {
        // An unknown record is 404 whatever the input (as every route with an id).
        const record = delegateNamed<{ findUnique(args: object): Promise<object | null>; findUniqueOrThrow(args: object): Promise<never> }>(ctx.db, delegate);
        await orNotFound(record.findUnique({ where: { id }, select: { id: true } }), delegate === 'contact' ? 'Contact' : 'Company');
        const { sourceIds } = parseInput(MergeInput, input, ctx);
        await mergeRecords(ctx, type, id, sourceIds);
        return record.findUniqueOrThrow({ ...query, where: { id } });
      },
    }),
  );
}

mergeField('contacts', 'Contacts', Contact, 'contact');
mergeField('companies', 'Companies', Company, 'company');
