/**
 * A model's rows read through node-postgres in the shape Prisma's client gives them (its field names, `BigInt` for
 * `BigInt` fields; node-postgres already gives `Date`, numbers, JSON and arrays as Prisma does), for reads on every
 * request where Prisma compiling the query costs more than PostgreSQL answering it. The columns come from the
 * generated client's own datamodel, so a column added to the schema is read here too.
 */
import { Prisma } from '@prisma/client';

export interface ModelColumns<T> {
  /** The select list: each column of `alias` under its field's name. */
  list: string;
  /** The row of a query that selected `list`, as the model. */
  read(row: Record<string, unknown>): T;
}

export function modelColumns<T>(modelName: Prisma.ModelName, alias: string): ModelColumns<T> {
  const model = Prisma.dmmf.datamodel.models.find((m) => m.name === modelName);
  if (!model) throw new Error(`no model ${modelName} in the Prisma client`);
  const fields = model.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
  const bigints = fields.filter((f) => f.type === 'BigInt').map((f) => f.name);
  return {
    list: fields.map((f) => `${alias}."${f.dbName ?? f.name}" AS "${f.name}"`).join(', '),
    read(row) {
      for (const name of bigints) {
        const value = row[name];
        if (value !== null && value !== undefined) row[name] = BigInt(value as string);
      }
      return row as T;
    },
  };
}
