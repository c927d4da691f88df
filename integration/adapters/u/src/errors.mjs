// Typed tool errors. Every failure a tool reports is an MCP tool result with isError: true,
// a model-visible text rendering, and structuredContent { error: {...} } with the same fields.

export const MAX_LISTED_CONNECTIONS = 12;

export class ToolError extends Error {
  /**
   * @param {{
   *   code: string, message: string, type?: string, param?: string, retry_with?: string,
   *   available_connections?: Array<Record<string, unknown>>, available_connection_count?: number,
   *   hint?: string, status?: number, rs_path?: string, request_id?: string, extra?: Record<string, unknown>,
   *   retry?: { tool: string, arguments: Record<string, unknown> }
   * }} f
   */
  constructor(f) {
    super(f.message);
    this.name = 'ToolError';
    this.fields = { ...f };
  }
}

/** Default type by code, for adapter-generated errors (RS errors keep the RS's own type). */
function defaultType(code, status) {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (code === 'ambiguous_connection') return 'ambiguous_connection';
  if (code.startsWith('invalid_') || code === 'unknown_field') return 'invalid_request_error';
  return 'api_error';
}

/** Next-step guidance for well-known codes (kept short; the full recovery story is in the server instructions). */
function defaultHint(f) {
  const c = f.code;
  if (c === 'ambiguous_connection' || c === 'ambiguous_schema_detail')
    return 'Retry the same call with connection_id set to one of available_connections (call schema for the full connection index).';
  if (c === 'connection_not_found' || c === 'context.instance_mismatch')
    return 'That connection_id is not granted for this stream; call schema(stream) to see its granted connections.';
  if (c === 'context.stream_not_allowed' || c === 'grant_stream_not_allowed' || c === 'stream_not_declared')
    return 'That stream is not in this grant; call schema() for the granted streams.';
  if (c === 'field_not_granted' || c === 'unknown_field')
    return 'Use only fields listed by schema(stream, connection_id).';
  if (c === 'invalid_cursor' || c === 'cursor_expired')
    return 'Restart from the first page (omit cursor), or for changes use changes_since="beginning".';
  if (c === 'invalid_expand') return 'Check expand relations in schema(stream, connection_id) (GET /v1/schema expand_capabilities).';
  if (c === 'invalid_sort') return 'Only the cursor field shown by schema(stream) is sortable; use sort="<field>" or "-<field>".';
  if (c === 'field_not_text') return 'The field is not a text value; read_record_field returns JSON or blob metadata for it instead.';
  if (c === 'query_not_found') return 'The text was not found in that field; read from offset 0 instead.';
  if (c === 'not_found') return 'Check the id (use ids exactly as returned by search or query_records).';
  if (f.status === 401)
    return 'The grant-scoped token was not accepted for this read (expired, revoked, or outside the grant); obtain a fresh client grant for this MCP connection.';
  if (f.status === 403) return 'The grant does not allow this read; call schema() to see what is granted.';
  if (c === 'rs_unavailable' || c === 'rs_timeout') return 'Retry later.';
  return undefined;
}

/**
 * Bound the candidate list and add total/truncation metadata.
 * @param {Array<Record<string, unknown>>} list
 */
export function boundConnections(list) {
  const total = list.length;
  const shown = list.slice(0, MAX_LISTED_CONNECTIONS);
  return {
    available_connections: shown,
    available_connection_count: total,
    available_connections_truncated: total > shown.length,
    available_connections_omitted: total - shown.length,
  };
}

/** @param {unknown} v */
const q = (v) => JSON.stringify(v);

/**
 * Convert any thrown value into an MCP CallToolResult.
 * @param {unknown} err
 */
export function errorResult(err, tool) {
  /** @type {Record<string, any>} */
  let f;
  if (err instanceof ToolError) f = { ...err.fields };
  else {
    f = {
      code: 'internal_error',
      message: `The adapter failed while handling this call: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const error = {
    code: f.code,
    type: f.type ?? defaultType(f.code, f.status),
    message: f.message,
  };
  if (f.status) error.status = f.status;
  if (f.param) error.param = f.param;
  if (f.retry_with) error.retry_with = f.retry_with;
  if (Array.isArray(f.available_connections)) {
    const total = f.available_connection_count ?? f.available_connections.length;
    error.available_connections = f.available_connections.slice(0, MAX_LISTED_CONNECTIONS);
    error.available_connection_count = total;
    error.available_connections_truncated = total > error.available_connections.length;
    if (error.available_connections_truncated) {
      error.available_connections_omitted = total - error.available_connections.length;
      error.discovery_hint = 'Call schema for the full granted connection index before retrying with connection_id.';
    }
  }
  if (f.extra && typeof f.extra === 'object') {
    for (const [k, v] of Object.entries(f.extra)) if (!(k in error)) error[k] = v;
  }
  let hint = f.hint ?? defaultHint(f);
  if (!hint && (f.code === 'invalid_request' || f.code === 'invalid_argument') && f.status === 400) {
    if (tool === 'aggregate') hint = 'Check the aggregate line of schema(stream, connection_id) for usable metrics, fields and groupings.';
    else if (tool === 'query_records') hint = 'Check schema(stream, connection_id) for filterable, sortable and projectable fields.';
    else if (tool === 'search') hint = 'Check search fields and modes in schema(stream); filter needs exactly one stream.';
  }
  if (hint) error.hint = hint;
  if (f.retry) error.retry = f.retry;

  const lines = [`Error ${error.code} (${error.type}${error.status ? `, HTTP ${error.status}` : ''}): ${error.message}`];
  if (error.param) lines.push(`param: ${error.param}`);
  if (error.retry_with) lines.push(`retry_with: ${error.retry_with}`);
  if (error.available_connections) {
    lines.push(
      `available_connections (${error.available_connections.length} of ${error.available_connection_count}${
        error.available_connections_truncated ? ', truncated' : ''
      }):`,
    );
    for (const c of error.available_connections) {
      const parts = [`connection_id=${c.connection_id}`];
      if (c.connector_key) parts.push(`connector_key=${c.connector_key}`);
      if (c.grant_id) parts.push(`grant_id=${c.grant_id}`);
      if (c.stream) parts.push(`stream=${c.stream}`);
      if (c.display_name) parts.push(`display_name=${q(c.display_name)}`);
      lines.push(`- ${parts.join(' · ')}`);
    }
    if (error.available_connections_truncated) {
      lines.push(`… ${error.available_connections_omitted} more not listed. ${error.discovery_hint}`);
    }
  }
  for (const [k, v] of Object.entries(error)) {
    if (
      [
        'code',
        'type',
        'message',
        'status',
        'param',
        'retry_with',
        'available_connections',
        'available_connection_count',
        'available_connections_truncated',
        'available_connections_omitted',
        'discovery_hint',
        'hint',
        'retry',
      ].includes(k)
    )
      continue;
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    lines.push(`${k}: ${s.length > 400 ? s.slice(0, 400) + '…' : s}`);
  }
  if (error.retry)
    lines.push(
      `${error.retry_with ? `Example retry (set ${error.retry_with} to the right one)` : 'Retry'}: ${error.retry.tool} ${q(error.retry.arguments)}`,
    );
  if (error.hint) lines.push(`Next step: ${error.hint}`);
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: { error },
  };
}
