import {
  createQueryId,
  type Compilable,
  type CompiledQuery,
  type Kysely,
  type QueryResult,
  type RootOperationNode,
} from "kysely";
import { runWhenIdle } from "./connection";
import { isPostgres } from "./dialect";

/** Where a named parameter goes in a query being built (compiled into the query's parameter list). */
class Parameter {
  constructor(readonly name: string) {}
}

type Argument = { parameter: string } | { value: unknown };

interface Compiled {
  sql: string;
  query: RootOperationNode;
  arguments: Argument[];
}

/** Names the parameters of a query being built: `param("chatId")` stands where the chat id goes. */
export type ParamFn<P> = <K extends keyof P & string>(name: K) => P[K];

/**
 * A query built and compiled by Kysely once per dialect, then run with new parameters: building
 * and compiling the query an update makes on every update cost as much CPU as SQLite's execution
 * of it (the bench's profile of the update mix). The SQL is Kysely's own, the values go to the
 * driver as parameters exactly as they would from the builder, and the result is Kysely's.
 *
 * Every parameter must be a value the builder passes to the driver (a compared, inserted or set
 * value); the first compilation checks that each named parameter reached the parameter list, so a
 * query shape that would inline one fails at once rather than run with the wrong value.
 */
export function prepared<DB, P extends Record<string, unknown>, R>(
  build: (db: Kysely<DB>, param: ParamFn<P>) => Compilable<R>,
): (db: Kysely<DB>, params: P) => Promise<QueryResult<R>> {
  const byDialect = new Map<boolean, Compiled>();
  const compile = (db: Kysely<DB>): Compiled => {
    const named = new Map<string, Parameter>();
    const param = ((name: string) => {
      const parameter = named.get(name) ?? new Parameter(name);
      named.set(name, parameter);
      return parameter;
    }) as ParamFn<P>;
    const compiled = build(db, param).compile();
    const args: Argument[] = compiled.parameters.map((value) =>
      value instanceof Parameter ? { parameter: value.name } : { value },
    );
    for (const name of named.keys()) {
      if (!args.some((arg) => "parameter" in arg && arg.parameter === name))
        throw new Error(`prepared query: the parameter "${name}" did not reach the query's parameter list`);
    }
    return { sql: compiled.sql, query: compiled.query, arguments: args };
  };
  return async (db, params) => {
    const postgres = isPostgres(db);
    let compiled = byDialect.get(postgres);
    if (!compiled) {
      compiled = compile(db);
      byDialect.set(postgres, compiled);
    }
    const parameters = compiled.arguments.map((arg) => ("parameter" in arg ? params[arg.parameter] : arg.value));
    // SQLite with its connection free: run now (see runWhenIdle); otherwise through Kysely.
    const now = postgres ? undefined : runWhenIdle<R>(db, compiled.sql, parameters);
    if (now) return now;
    const query: CompiledQuery<R> = { sql: compiled.sql, query: compiled.query, parameters, queryId: createQueryId() };
    return db.executeQuery(query);
  };
}
