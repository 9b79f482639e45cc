export declare const PROVIDERS: readonly ['sqlite', 'postgresql'];
/** Writes prisma/<provider>/schema.prisma from the model source and the provider's datasource; returns its path. */
export declare function assembleSchema(provider: 'sqlite' | 'postgresql'): string;
/** prisma/<provider>/schema.prisma's text (what assembleSchema writes). */
export declare function schemaText(provider: 'sqlite' | 'postgresql'): string;
