// Shared rendering: value classification (text / long text / binary / blob), bounded previews,
// record envelopes for structuredContent and their model-visible text.

import { recordHandle, blobUri } from './handles.mjs';

export const LIMITS = {
  /** characters of one string value shown inline in model-visible text */
  textValueChars: 400,
  /** characters of one string value kept in structuredContent */
  structuredValueChars: 1000,
  /** characters of one JSON (object/array) value shown inline in text */
  textJsonChars: 400,
  /** characters of one JSON value kept in structuredContent before it is cut */
  structuredJsonChars: 4000,
  /** overall budget for the text block of a record list */
  listTextChars: 24000,
  /** overall budget for the serialized structuredContent of a record list */
  listStructuredBytes: 48000,
  /** bounded search preview */
  previewChars: 480,
  /** inline window default for read_record_field */
  windowChars: 4000,
  /** fetch document text budget */
  documentTextChars: 20000,
  /** fetch: primary text field inline budget */
  documentPrimaryChars: 12000,
};

const q = (v) => JSON.stringify(v);

// ---------------------------------------------------------------------------------------------
// Binary detection

const B64 = /^[A-Za-z0-9+/]+={0,2}$/;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Decide whether a string carries encoded binary content.
 * @param {string} s
 * @returns {null | { encoding: string, media_type: string | null, approx_bytes: number, chars: number }}
 */
export function detectBinaryString(s) {
  if (typeof s !== 'string' || s.length < 64) return null;
  const m = /^data:([^;,]*)((?:;[^;,]*)*?);base64,/i.exec(s);
  if (m) {
    const body = s.slice(m[0].length).replace(/\s+/g, '');
    return { encoding: 'base64 (data URI)', media_type: m[1] || null, approx_bytes: Math.floor((body.length * 3) / 4), chars: s.length };
  }
  // raw bytes decoded as text: NUL or many control characters
  let ctrl = 0;
  const probe = s.length > 4096 ? s.slice(0, 4096) : s;
  for (let i = 0; i < probe.length; i++) {
    const c = probe.charCodeAt(i);
    if (c === 0) return { encoding: 'raw', media_type: null, approx_bytes: Buffer.byteLength(s), chars: s.length };
    if (c < 32 && c !== 9 && c !== 10 && c !== 13) ctrl++;
  }
  if (ctrl / probe.length > 0.1) return { encoding: 'raw', media_type: null, approx_bytes: Buffer.byteLength(s), chars: s.length };
  if (s.length < 120) return null;
  const compact = s.includes('\n') ? s.replace(/[\r\n]+/g, '') : s;
  if (/\s/.test(compact)) return null;
  let encoding = null;
  if (B64.test(compact) && (compact.length % 4 === 0 || !compact.includes('='))) encoding = 'base64';
  else if (B64URL.test(compact)) encoding = 'base64url';
  if (!encoding) return null;
  // A long run of single-case letters is far more likely a word or identifier than encoded bytes.
  const head = compact.slice(0, 512).replace(/=+$/, '');
  if (/^[a-z]+$/.test(head) || /^[A-Z]+$/.test(head)) return null;
  const bytes = Math.floor((compact.replace(/=+$/, '').length * 3) / 4);
  return { encoding, media_type: sniffMediaType(compact, encoding), approx_bytes: bytes, chars: s.length };
}

/** Sniff a media type from the first decoded bytes (magic numbers only). */
function sniffMediaType(b64, encoding) {
  let head;
  try {
    head = Buffer.from(b64.slice(0, 32), encoding === 'base64url' ? 'base64url' : 'base64');
  } catch {
    return null;
  }
  const h = (n) => head.subarray(0, n);
  const ascii = head.toString('latin1');
  if (ascii.startsWith('%PDF-')) return 'application/pdf';
  if (h(8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'image/gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'image/webp';
  if (ascii.startsWith('II*\u0000') || ascii.startsWith('MM\u0000*')) return 'image/tiff';
  if (ascii.startsWith('PK\u0003\u0004')) return 'application/zip';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'application/gzip';
  if (ascii.startsWith('ID3') || (head[0] === 0xff && (head[1] & 0xe0) === 0xe0)) return 'audio/mpeg';
  if (ascii.slice(4, 8) === 'ftyp') return 'video/mp4';
  return null;
}

/** Is this object a blob reference (data.blob_ref-style)? */
export function isBlobRef(v) {
  return !!v && typeof v === 'object' && !Array.isArray(v) && typeof v.blob_id === 'string';
}

/** Describe a blob reference, with a read continuation only when the RS advertises a fetch_url. */
export function describeBlob(v, field, connectionId) {
  const d = { field, blob_id: v.blob_id };
  if (v.mime_type) d.media_type = v.mime_type;
  if (typeof v.size_bytes === 'number') d.size_bytes = v.size_bytes;
  if (v.sha256) d.sha256 = v.sha256;
  if (v.fetch_url && connectionId) {
    d.resource_uri = blobUri({ connection_id: connectionId, blob_id: v.blob_id });
    d.rest_route = `GET /v1/blobs/${encodeURIComponent(v.blob_id)}?connection_id=${encodeURIComponent(connectionId)}`;
  } else if (v.fetch_url) {
    d.rest_route = `GET ${v.fetch_url}`;
  } else {
    d.readable = false;
    d.note = 'No fetch_url advertised by the resource server; content is not readable through this grant.';
  }
  return d;
}

export function blobText(d) {
  const parts = [`blob ${d.blob_id}`];
  if (d.media_type) parts.push(d.media_type);
  if (d.size_bytes != null) parts.push(`${d.size_bytes} bytes`);
  let s = `[${parts.join(' · ')}; metadata only`;
  if (d.resource_uri) s += `; read as MCP resource ${d.resource_uri} (REST: ${d.rest_route})`;
  else if (d.rest_route) s += `; REST: ${d.rest_route}`;
  else s += '; not readable (no fetch_url)';
  return s + ']';
}

export function binaryText(b) {
  const parts = [`binary ${b.encoding}`, `~${b.approx_bytes} bytes`, b.media_type ? `media type ${b.media_type}` : 'media type unknown'];
  return `[${parts.join(' · ')}; ${b.chars} chars not inlined]`;
}

/** Deep-clean a JSON value for structured output: binary strings become placeholders; long strings are cut. */
export function scrubNested(v, depth = 0) {
  if (typeof v === 'string') {
    const b = detectBinaryString(v);
    if (b) return binaryText(b);
    return v.length > LIMITS.structuredValueChars ? v.slice(0, LIMITS.structuredValueChars) + '…' : v;
  }
  if (Array.isArray(v)) return depth > 8 ? '[…]' : v.map((x) => scrubNested(x, depth + 1));
  if (v && typeof v === 'object') {
    if (depth > 8) return '{…}';
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = scrubNested(x, depth + 1);
    return out;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Record envelopes

/**
 * Build the bounded structured envelope of one RS record.
 * @param {any} rec RS record object
 * @param {{ connection_id?: string | null, connector_key?: string | null, fields?: string[] | null, connectorOf?: (cid: string) => string | null }} ctx
 */
export function recordEnvelope(rec, ctx) {
  const connectionId = rec.connection_id ?? rec.connector_instance_id ?? ctx.connection_id ?? null;
  const stream = rec.stream;
  const recordId = String(rec.id);
  const handleArgs = { connection_id: connectionId, stream, record_id: recordId };
  const id = recordHandle(handleArgs);
  const env = {
    id,
    record_id: recordId,
    stream,
    connection_id: connectionId,
    connector_key: rec.connector_key ?? (connectionId && ctx.connectorOf ? ctx.connectorOf(connectionId) : null) ?? ctx.connector_key ?? null,
  };
  if (rec.display_name) env.display_name = rec.display_name;
  if (rec.emitted_at) env.emitted_at = rec.emitted_at;
  if (rec.deleted) {
    env.deleted = true;
    if (rec.deleted_at) env.deleted_at = rec.deleted_at;
  }
  const data = {};
  const truncated = {};
  const binary = {};
  const blobs = [];
  const src = rec.data && typeof rec.data === 'object' ? rec.data : {};
  const wanted = ctx.fields && ctx.fields.length ? new Set(ctx.fields) : null;
  for (const [k, v] of Object.entries(src)) {
    if (wanted && !wanted.has(k)) continue; // projection: never leak unrequested fields
    if (typeof v === 'string') {
      const b = detectBinaryString(v);
      if (b) {
        binary[k] = { ...b, read: { tool: 'read_record_field', arguments: { id, field: k, offset: 0, limit_chars: 1024 } } };
        continue;
      }
      if (v.length > LIMITS.structuredValueChars) {
        data[k] = v.slice(0, LIMITS.structuredValueChars);
        truncated[k] = {
          total_chars: v.length,
          shown_chars: LIMITS.structuredValueChars,
          read: { tool: 'read_record_field', arguments: { id, field: k, offset: LIMITS.structuredValueChars } },
        };
        continue;
      }
      data[k] = v;
    } else if (isBlobRef(v)) {
      data[k] = v;
      blobs.push(describeBlob(v, k, connectionId));
    } else if (v && typeof v === 'object') {
      const json = JSON.stringify(v);
      if (json.length > LIMITS.structuredJsonChars) {
        data[k] = scrubNested(v);
        const cut = JSON.stringify(data[k]);
        if (cut.length > LIMITS.structuredJsonChars) {
          delete data[k];
          truncated[k] = {
            total_chars: json.length,
            shown_chars: 0,
            kind: 'json',
            read: { tool: 'read_record_field', arguments: { id, field: k, offset: 0 } },
          };
        }
      } else data[k] = scrubNested(v);
    } else {
      data[k] = v;
    }
  }
  env.data = data;
  if (Object.keys(truncated).length) env.truncated_fields = truncated;
  if (Object.keys(binary).length) env.binary_fields = binary;
  if (blobs.length) env.blobs = blobs;
  if (rec.expanded && typeof rec.expanded === 'object') {
    env.expanded = {};
    for (const [rel, list] of Object.entries(rec.expanded)) {
      if (list && Array.isArray(list.data)) {
        env.expanded[rel] = {
          has_more: !!list.has_more,
          records: list.data.map((child) => recordEnvelope(child, { connection_id: connectionId, connectorOf: ctx.connectorOf })),
        };
      } else if (list && typeof list === 'object' && list.object === 'record') {
        env.expanded[rel] = { has_more: false, records: [recordEnvelope(list, { connection_id: connectionId, connectorOf: ctx.connectorOf })] };
      } else {
        env.expanded[rel] = { has_more: false, records: [] };
      }
    }
  }
  return env;
}

/** One-line, bounded text rendering of a scalar/JSON value from an envelope. */
function valueText(env, k, v) {
  if (typeof v === 'string') {
    const t = env.truncated_fields?.[k];
    const total = t ? t.total_chars : v.length;
    if (total > LIMITS.textValueChars) {
      const shown = Math.min(LIMITS.textValueChars, v.length);
      return `${q(v.slice(0, shown))}… [truncated: ${shown} of ${total} chars; continue: read_record_field ${q({ id: env.id, field: k, offset: shown })}]`;
    }
    return q(v);
  }
  if (isBlobRef(v)) {
    const d = env.blobs?.find((b) => b.field === k) ?? describeBlob(v, k, env.connection_id);
    return blobText(d);
  }
  if (v && typeof v === 'object') {
    const json = JSON.stringify(v);
    if (json.length > LIMITS.textJsonChars)
      return `${json.slice(0, LIMITS.textJsonChars)}… [JSON truncated: ${LIMITS.textJsonChars} of ${json.length} chars; continue: read_record_field ${q({ id: env.id, field: k, offset: LIMITS.textJsonChars })}]`;
    return json;
  }
  return JSON.stringify(v);
}

/**
 * Render one envelope as text lines.
 * @param {any} env
 * @param {{ index?: number, indent?: string, showSource?: boolean }} [o]
 */
export function envelopeText(env, o = {}) {
  const ind = o.indent ?? '   ';
  const head = [`id=${env.id}`];
  if (o.showSource !== false) {
    if (env.connector_key) head.push(`connector ${env.connector_key}`);
    if (env.connection_id) head.push(`connection ${env.connection_id}${env.display_name ? ` ${q(env.display_name)}` : ''}`);
  }
  if (env.emitted_at) head.push(`emitted ${env.emitted_at}`);
  if (env.deleted) head.push(`DELETED${env.deleted_at ? ` at ${env.deleted_at}` : ''}`);
  const lines = [`${o.index != null ? `${o.index}. ` : ''}${head.join(' · ')}`];
  for (const [k, v] of Object.entries(env.data ?? {})) lines.push(`${ind}${k}: ${valueText(env, k, v)}`);
  for (const [k, t] of Object.entries(env.truncated_fields ?? {})) {
    if (k in (env.data ?? {})) continue;
    lines.push(`${ind}${k}: [${t.kind === 'json' ? 'JSON' : 'text'} value of ${t.total_chars} chars not inlined; read: read_record_field ${q(t.read.arguments)}]`);
  }
  for (const [k, b] of Object.entries(env.binary_fields ?? {})) {
    lines.push(`${ind}${k}: ${binaryText(b)} (raw windows: read_record_field ${q(b.read.arguments)})`);
  }
  for (const [rel, ex] of Object.entries(env.expanded ?? {})) {
    lines.push(`${ind}expanded ${rel}: ${ex.records.length} record(s)${ex.has_more ? ' (more exist; raise expand_limit)' : ''}`);
    ex.records.forEach((child, i) => {
      for (const l of envelopeText(child, { index: i + 1, indent: ind + '     ', showSource: false }).split('\n')) lines.push(ind + '  ' + l);
    });
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Highlight handling for search previews

/** Keep only <mark>/</mark> and make them balanced; if they cannot be balanced, drop them. */
export function balanceMarks(s) {
  if (typeof s !== 'string') return '';
  let depth = 0;
  let ok = true;
  const re = /<\/?mark>/gi;
  let m;
  while ((m = re.exec(s))) {
    if (m[0][1] === '/') {
      depth--;
      if (depth < 0) {
        ok = false;
        break;
      }
    } else {
      depth++;
      if (depth > 1) {
        ok = false;
        break;
      }
    }
  }
  if (!ok || depth !== 0) return s.replace(/<\/?mark>/gi, '');
  return s.replace(/<mark>/gi, '<mark>').replace(/<\/mark>/gi, '</mark>');
}

export const stripMarks = (s) => String(s ?? '').replace(/<\/?mark>/gi, '');

/** Inner texts of all <mark> spans. */
export function markedTerms(s) {
  const out = [];
  const re = /<mark>([\s\S]*?)<\/mark>/gi;
  let m;
  while ((m = re.exec(String(s ?? '')))) if (m[1].trim()) out.push(m[1]);
  return out;
}

/**
 * Bound a highlighted preview to max visible chars, centred on the first mark, never cutting a tag.
 * @param {string} s balanced preview
 * @param {number} max
 */
export function boundPreview(s, max = LIMITS.previewChars) {
  const plain = stripMarks(s);
  if (plain.length <= max) return s;
  // map visible offsets to raw offsets
  const tokens = s.split(/(<\/?mark>)/i);
  let visible = 0;
  let firstMark = -1;
  for (const t of tokens) {
    if (/^<mark>$/i.test(t)) {
      if (firstMark < 0) firstMark = visible;
    } else if (!/^<\/mark>$/i.test(t)) visible += t.length;
  }
  const center = firstMark < 0 ? 0 : firstMark;
  let start = Math.max(0, center - Math.floor(max / 3));
  let end = Math.min(plain.length, start + max);
  start = Math.max(0, end - max);
  // rebuild with tags inside [start, end)
  let out = '';
  let pos = 0;
  let open = false;
  for (const t of tokens) {
    if (/^<mark>$/i.test(t)) {
      if (pos >= start && pos < end) {
        out += '<mark>';
        open = true;
      }
      continue;
    }
    if (/^<\/mark>$/i.test(t)) {
      if (open) {
        out += '</mark>';
        open = false;
      }
      continue;
    }
    const a = Math.max(start, pos);
    const b = Math.min(end, pos + t.length);
    if (b > a) out += t.slice(a - pos, b - pos);
    pos += t.length;
  }
  if (open) out += '</mark>';
  // A span that started before the window is shown unhighlighted; balanceMarks guards the rest.
  out = balanceMarks(out);
  const lead = start > 0 && !/^[…]/.test(out) ? '…' : '';
  const tail = end < plain.length && !/[…]$/.test(out) ? '…' : '';
  return lead + out + tail;
}
