// Record handles.
//
// A record handle is "<connection_id>/<stream>/<record_id>" with each segment percent-encoded
// (encodeURIComponent), e.g. "cin_work/messages/m007". When the RS does not say which connection a
// record came from, the handle is "<stream>/<record_id>". The same record is also addressable as the
// URI "pdpp://record/<connection_id>/<stream>/<record_id>"; fetch and read_record_field accept both
// forms, and the URI is readable through MCP resources/read.

import { ToolError } from './errors.mjs';

const enc = (s) => encodeURIComponent(String(s));

/** @param {{ connection_id?: string | null, stream: string, record_id: string }} r */
export function recordHandle(r) {
  return r.connection_id ? `${enc(r.connection_id)}/${enc(r.stream)}/${enc(r.record_id)}` : `${enc(r.stream)}/${enc(r.record_id)}`;
}

/** @param {{ connection_id?: string | null, stream: string, record_id: string }} r */
export function recordUri(r) {
  return `pdpp://record/${recordHandle(r)}`;
}

/** @param {{ connection_id: string, blob_id: string }} b */
export function blobUri(b) {
  return `pdpp://blob/${enc(b.connection_id)}/${enc(b.blob_id)}`;
}

/**
 * Parse a record handle or pdpp://record URI.
 * @param {string} id
 * @returns {{ connection_id: string | null, stream: string, record_id: string }}
 */
export function parseRecordHandle(id) {
  let s = String(id ?? '').trim();
  if (s.startsWith('pdpp://record/')) s = s.slice('pdpp://record/'.length);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    throw new ToolError({
      code: 'invalid_id',
      message: `Unsupported id "${id}". Use a record id as returned by search or query_records ("<connection_id>/<stream>/<record_id>") or a pdpp://record/... URI.`,
      param: 'id',
    });
  }
  const parts = s.split('/');
  let decoded;
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    decoded = null;
  }
  if (!decoded || decoded.some((p) => p === '') || parts.length < 2 || parts.length > 3) {
    throw new ToolError({
      code: 'invalid_id',
      message: `Malformed id "${id}". Expected "<connection_id>/<stream>/<record_id>" (segments percent-encoded) as returned by search or query_records.`,
      param: 'id',
    });
  }
  if (decoded.length === 3) return { connection_id: decoded[0], stream: decoded[1], record_id: decoded[2] };
  return { connection_id: null, stream: decoded[0], record_id: decoded[1] };
}
