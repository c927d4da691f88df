// The MCP surface: server instructions, the six read tools and two resource templates.

import { McpServer, McpError } from 'tmcp';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import * as z from 'zod';

import { errorResult, ToolError } from './errors.mjs';
import { schemaTool, GRANULARITIES } from './tools/schema.mjs';
import { queryRecordsTool, aggregateTool } from './tools/records.mjs';
import { searchTool } from './tools/search.mjs';
import { fetchTool, readRecordFieldTool, readRecordResource, readBlobResource } from './tools/fetch.mjs';

export const SERVER_NAME = 'pdpp-mcp';
export const SERVER_VERSION = '0.1.0';
export const TOOL_NAMES = ['schema', 'query_records', 'aggregate', 'search', 'fetch', 'read_record_field'];

// The first 512 characters are self-contained: grant posture, schema-first discovery,
// connection_id disambiguation, typed filters and bounded paging/narrowing.
export const INSTRUCTIONS = [
  'PDPP personal data, read-only, limited to what this client\'s grant allows. ' +
    '1) Discover first: schema() indexes connectors, connections and streams; schema(stream, connection_id) shows fields, filters, sort, aggregations. ' +
    '2) If a stream has several connections, pass connection_id. ' +
    '3) Filters are typed objects: {"field":"value"} or {"field":{"gte":"2026-01-01"}}. ' +
    '4) Keep results bounded: project fields, small limit, page with cursor; prefer aggregate or search to wide reads.',
  '',
  'Reading loop: search(query) searches every granted connection (limit = merged hits) and returns ids "<connection_id>/<stream>/<record_id>" with source identity and a bounded matched-text preview; fetch(id) returns one record as a document {id,title,text,url,metadata}; query_records pages structured records of one stream and connection (text shows next_cursor, next_changes_since and counts, with ready-made next-call arguments); aggregate counts/sums/groups.',
  'Evidence ladder: previews and long values are bounded and always name their continuation — read_record_field(id, field, offset | q) returns exact text windows with next/previous offsets; use it instead of re-fetching when a value is marked truncated. Binary values are metadata-only; blobs with a fetch_url are readable as resource pdpp://blob/{connection_id}/{blob_id}. pdpp://record/... URIs are accepted as fetch/read_record_field ids and are readable with resources/read.',
  'Errors are typed {code, message, param, retry_with, available_connections, hint}; on ambiguous_connection retry with one listed connection_id; on connection_not_found or stream_not_found call schema. Every result carries the same records, handles and continuations as text and as structuredContent (structured output for programs); both are bounded.',
].join('\n');

// ---------------------------------------------------------------------------------------------
// Argument schemas (zod → JSON Schema via @tmcp/adapter-zod). Validation is done by the handlers so
// that invalid arguments come back as typed invalid_argument errors.

const connectionId = z.string().min(1).describe('Granted connection to read (ids from schema).');
const stream = z.string().min(1).describe('Stream name from schema.');
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const range = z
  .object({ gte: scalar.optional(), gt: scalar.optional(), lte: scalar.optional(), lt: scalar.optional() })
  .strict()
  .refine((o) => Object.keys(o).length > 0, 'range filter needs at least one of gte, gt, lte, lt');
const filter = z
  .record(z.string(), z.union([scalar, range]))
  .describe('Typed filter object: {"field": value} for exact match, {"field": {"gte": v, "lt": v}} for ranges. Use fields schema(stream) marks as filterable.');
const fields = z.array(z.string().min(1)).min(1).max(200).describe('Projection: return only these data fields.');
const expand = z.array(z.string().min(1)).min(1).max(10).describe('Relations to embed (schema lists expand relations).');
const expandLimit = z.record(z.string(), z.number().int().min(1).max(1000)).describe('Per-relation child cap, e.g. {"attachments": 5}.');

export const SCHEMAS = {
  schema: z
    .object({
      stream: stream.optional().describe('Scope to one stream for its fields and capabilities; omit for the index.'),
      connection_id: connectionId.optional(),
      detail: z.enum(['compact', 'full']).optional().describe('"full" adds raw JSON Schema; requires stream.'),
    })
    .strict(),
  query_records: z
    .object({
      stream,
      connection_id: connectionId.optional(),
      fields: fields.optional(),
      filter: filter.optional(),
      sort: z.string().min(1).optional().describe('"<cursor field>" or "-<cursor field>" (see schema).'),
      order: z.enum(['asc', 'desc']).optional(),
      limit: z.number().int().min(1).max(100).optional().describe('Page size, default 20.'),
      cursor: z.string().min(1).optional().describe('next_cursor from the previous page (repeat the other arguments).'),
      changes_since: z.string().min(1).optional().describe('"beginning" or a next_changes_since value: changed records only.'),
      count: z.boolean().optional().describe('true: include the exact total matching count.'),
      expand: expand.optional(),
      expand_limit: expandLimit.optional(),
    })
    .strict(),
  aggregate: z
    .object({
      stream,
      connection_id: connectionId.optional(),
      metric: z.enum(['count', 'sum', 'min', 'max', 'count_distinct']),
      field: z.string().min(1).optional().describe('Required for sum, min, max, count_distinct.'),
      group_by: z.string().min(1).optional().describe('Group counts by this field.'),
      group_by_time: z.string().min(1).optional().describe('Bucket counts by this time field (needs granularity).'),
      granularity: z.enum(GRANULARITIES).optional(),
      time_zone: z.string().min(1).optional().describe('IANA zone for time buckets, default UTC.'),
      limit: z.number().int().min(1).max(100).optional().describe('Max groups, default 10.'),
      filter: filter.optional(),
    })
    .strict(),
  search: z
    .object({
      query: z.string().min(1).max(1000).describe('Search text.'),
      streams: z.array(z.string().min(1)).min(1).max(50).optional().describe('Limit to these streams.'),
      connection_id: connectionId.optional().describe('Search only this granted connection; omit to search all.'),
      mode: z.enum(['lexical', 'semantic', 'hybrid']).optional().describe('Default lexical.'),
      limit: z.number().int().min(1).max(100).optional().describe('Max merged hits across all connections, default 10.'),
      cursor: z.string().min(1).optional().describe('next_cursor from the previous page (repeat the other arguments).'),
      filter: filter.optional().describe('Typed filter; needs exactly one entry in streams.'),
    })
    .strict(),
  fetch: z
    .object({
      id: z.string().min(1).describe('Record id from search or query_records ("<connection_id>/<stream>/<record_id>") or a pdpp://record/ URI.'),
      fields: fields.optional().describe('Project the record to these fields before rendering.'),
      expand: expand.optional(),
      expand_limit: expandLimit.optional(),
      connection_id: connectionId.optional().describe('Only needed for ids without a connection part.'),
    })
    .strict(),
  read_record_field: z
    .object({
      id: z.string().min(1).describe('Record id as returned by search, query_records or fetch.'),
      field: z.string().min(1).describe('Top-level field name.'),
      offset: z.number().int().min(0).optional().describe('Start character (default 0).'),
      limit_chars: z.number().int().min(1).max(16384).optional().describe('Window size, default 4000.'),
      q: z.string().min(1).max(500).optional().describe('Jump to the first case-insensitive match instead of offset.'),
      context_chars: z.number().int().min(0).max(8192).optional().describe('With q: characters before and after the match (default 300).'),
      connection_id: connectionId.optional().describe('Only needed for ids without a connection part.'),
    })
    .strict(),
};

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const TOOLS = [
  {
    name: 'schema',
    title: 'Discover granted data',
    description:
      'Read-only discovery of the granted PDPP data (GET /v1/schema). No arguments: compact index of connectors, connections and streams. ' +
      'With stream (optionally connection_id): fields, types, filter/sort/projection/count support, aggregations, expand relations and search modes, with a legend. ' +
      'detail "full" (requires stream) adds raw JSON Schema. Call this before reading; see server instructions.',
    handler: schemaTool,
  },
  {
    name: 'query_records',
    title: 'Read records of one stream',
    description:
      'Read-only page of records from one stream of one connection (GET /v1/streams/{stream}/records). Narrow with fields and typed filter, sort by the cursor field, page with cursor, follow changes with changes_since, count=true for a total. ' +
      'Long or binary values are cut or shown as metadata with read_record_field continuations. Text and structured output carry the same page. Capabilities: schema(stream); for totals use aggregate, to find records use search.',
    handler: queryRecordsTool,
  },
  {
    name: 'aggregate',
    title: 'Aggregate a stream',
    description:
      'Read-only count, sum, min, max or count_distinct over one stream of one connection, optionally grouped by a field or time bucket (GET /v1/streams/{stream}/aggregate). Use instead of reading many records; schema(stream) lists usable fields.',
    handler: aggregateTool,
  },
  {
    name: 'search',
    title: 'Search granted records',
    description:
      'Read-only full-text search across granted streams and connections (GET /v1/search, /semantic, /hybrid by mode). limit caps the merged hits. ' +
      'Each hit gives an id for fetch, source identity (connection_id, connector_key, stream, record id), a title, and a bounded matched-text preview when the match is proven. Page with cursor; narrow with streams or connection_id.',
    handler: searchTool,
  },
  {
    name: 'fetch',
    title: 'Fetch one record as a document',
    description:
      'Read-only fetch of one record by id from search or query_records (GET /v1/streams/{stream}/records/{id}). Returns the document {id, title, text, url, metadata} as structured output and as identical JSON text; fields projects the record before rendering. ' +
      'Narrow with fields when the whole record is not needed; use query_records for canonical structured records.',
    handler: fetchTool,
  },
  {
    name: 'read_record_field',
    title: 'Read a bounded field window',
    description:
      'Read-only bounded character window of one field of one record (GET /v1/streams/{stream}/records/{id}/field-window): text with offsets, total size, completion state and next/previous arguments. ' +
      'Page with offset or jump to a match with q. Non-text fields come back as JSON text or blob metadata. Continuation rules: server instructions.',
    handler: readRecordFieldTool,
  },
];

/** Standard-schema wrapper: tmcp always accepts; the handler validates with zod and reports typed errors. */
function deferredValidation(zodSchema) {
  return {
    '~standard': { version: 1, vendor: 'zod', validate: (value) => ({ value: value ?? {} }) },
    __zod: zodSchema,
  };
}

class DeferredZodAdapter extends ZodJsonSchemaAdapter {
  /** @param {any} schema */
  async toJsonSchema(schema) {
    const js = await super.toJsonSchema(schema?.__zod ?? schema);
    delete js.$schema;
    return js;
  }
}

function invalidArguments(name, issues) {
  const first = issues[0];
  const path = first?.path?.length ? first.path.join('.') : undefined;
  const unknown = issues.find((i) => i.code === 'unrecognized_keys');
  let message = issues
    .slice(0, 5)
    .map((i) => `${i.path?.length ? i.path.join('.') + ': ' : ''}${i.message}`)
    .join('; ');
  if (unknown?.keys?.includes('connector_instance_id')) message += ' (connector_instance_id is not accepted; use connection_id)';
  return new ToolError({
    code: 'invalid_argument',
    type: 'invalid_request_error',
    status: 400,
    param: unknown?.keys?.[0] ?? path,
    message: `Invalid arguments for ${name}: ${message}`,
    hint: `Fix the arguments to match the ${name} input schema (unknown keys are rejected).`,
  });
}

/** Run a resource read; typed failures become JSON-RPC errors (-32002 for not found) with the error object as data. */
async function resourceCall(fn, uri) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ToolError) {
      const f = err.fields;
      const data = { uri, error: { code: f.code, message: f.message, ...(f.retry_with ? { retry_with: f.retry_with } : {}), ...(f.available_connections ? { available_connections: f.available_connections.slice(0, 12) } : {}) } };
      throw new McpError(f.status === 404 ? -32002 : -32603, `${f.code}: ${f.message}`, data);
    }
    throw err;
  }
}

/**
 * @param {{ rs: import('./rs-client.mjs').RsClient, log: (line: string) => void }} deps
 */
export function createMcpServer(deps) {
  const options = {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
  };
  // tmcp spreads its options into the initialize result; keep the adapter object out of it.
  Object.defineProperty(options, 'adapter', { value: new DeferredZodAdapter(), enumerable: false });
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION, description: 'Grant-scoped, read-only PDPP data tools.' }, options).withContext();

  const ctxOf = () => {
    const custom = server.ctx.custom ?? {};
    return { rs: deps.rs, token: custom.token, signal: server.ctx.signal };
  };

  for (const t of TOOLS) {
    server.tool(
      {
        name: t.name,
        title: t.title,
        description: t.description,
        schema: deferredValidation(SCHEMAS[t.name]),
        annotations: READ_ONLY,
      },
      async (rawArgs) => {
        const started = Date.now();
        let outcome = 'ok';
        try {
          const ctx = ctxOf();
          if (!ctx.token) throw new ToolError({ code: 'authentication_error', status: 401, message: 'No bearer token reached this tool call.' });
          const parsed = SCHEMAS[t.name].safeParse(rawArgs ?? {});
          if (!parsed.success) throw invalidArguments(t.name, parsed.error.issues);
          const result = await t.handler(ctx, parsed.data);
          return result;
        } catch (err) {
          outcome = err instanceof ToolError ? err.fields.code : 'internal_error';
          if (!(err instanceof ToolError)) deps.log(`tool ${t.name} internal error: ${err?.stack ?? err}`);
          return errorResult(err, t.name);
        } finally {
          deps.log(`tool ${t.name} ${outcome} ${Date.now() - started}ms`);
        }
      },
    );
  }

  server.template(
    {
      name: 'pdpp-record',
      description: 'One granted record as the fetch document JSON (same as fetch with this URI as id).',
      uri: 'pdpp://record/{connection_id}/{stream}/{record_id}',
      mimeType: 'application/json',
    },
    async (uri, params) => resourceCall(() => readRecordResource(ctxOf(), uri, params), uri),
  );
  server.template(
    {
      name: 'pdpp-blob',
      description: 'Bytes of a granted blob (from a record field with blob_id and fetch_url), via GET /v1/blobs/{blob_id}.',
      uri: 'pdpp://blob/{connection_id}/{blob_id}',
    },
    async (uri, params) => resourceCall(() => readBlobResource(ctxOf(), uri, params), uri),
  );
  return server;
}
