// Pure helpers: record handles, bounded text, snippet hygiene, binary detection,
// schema capability normalisation. No I/O here so tests can cover it directly.

export const RECORD_URI_PREFIX = "pdpp://record/";

/** Record handle: pdpp://record/<connection_id>/<stream>/<record_id> (components URI-encoded). */
export function makeRecordUri(connectionId, stream, recordId) {
  const c = connectionId ? encodeURIComponent(connectionId) : "_";
  return `${RECORD_URI_PREFIX}${c}/${encodeURIComponent(stream)}/${encodeURIComponent(recordId)}`;
}

/**
 * Parse a record handle. Accepts the pdpp://record/ URI, or
 * "<connection_id>/<stream>:<record_id>" / "<stream>:<record_id>" shorthands.
 * Returns {connection_id?, stream, record_id} or null.
 */
export function parseRecordHandle(id) {
  if (typeof id !== "string" || !id) return null;
  const s = id.trim();
  if (s.startsWith(RECORD_URI_PREFIX)) {
    const parts = s.slice(RECORD_URI_PREFIX.length).split("/");
    if (parts.length !== 3 || parts.some((p) => p === "")) return null;
    try {
      const [c, st, r] = parts.map((p) => decodeURIComponent(p));
      return { connection_id: c === "_" ? undefined : c, stream: st, record_id: r };
    } catch {
      return null;
    }
  }
  const m = /^(?:([^/:\s]+)\/)?([^/:\s]+):(.+)$/.exec(s);
  if (m) return { connection_id: m[1] || undefined, stream: m[2], record_id: m[3] };
  return null;
}

export function clip(text, max) {
  const s = String(text ?? "");
  if (s.length <= max) return s;
  return `${s.slice(0, Math.max(0, max - 1))}…`;
}

/** Make <mark> highlight tags balanced; drop any other tags. */
export function balanceMarks(text) {
  if (typeof text !== "string") return "";
  let out = "";
  let open = false;
  const re = /<\/?mark>|<[^>]*>/gi;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    out += text.slice(last, m.index);
    last = m.index + m[0].length;
    const tag = m[0].toLowerCase();
    if (tag === "<mark>") {
      if (!open) {
        out += "<mark>";
        open = true;
      }
    } else if (tag === "</mark>") {
      if (open) {
        out += "</mark>";
        open = false;
      }
    }
    // any other tag is dropped
  }
  out += text.slice(last);
  // a trailing "<mar" fragment from a cut snippet
  out = out.replace(/<\/?m?a?r?k?$/i, "");
  if (open) out += "</mark>";
  return out;
}

/**
 * Bounded preview around the first highlight, keeping surrounding context and
 * balanced tags.
 */
export function previewAroundMark(text, max = 320) {
  const t = balanceMarks(text).replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  const i = t.indexOf("<mark>");
  let start = i < 0 ? 0 : Math.max(0, i - Math.floor(max / 3));
  let end = Math.min(t.length, start + max);
  // don't cut inside a tag
  const fixStart = t.lastIndexOf("<", start);
  if (fixStart >= 0 && t.indexOf(">", fixStart) >= start) start = fixStart;
  let slice = t.slice(start, end);
  slice = balanceMarks(slice.replace(/^[^<]*?>/, "")); // drop half tag at start
  return `${start > 0 ? "…" : ""}${slice}${end < t.length ? "…" : ""}`;
}

export function stripMarks(text) {
  return String(text ?? "").replace(/<\/?mark>/gi, "");
}

const BASE64_RE = /^[A-Za-z0-9+/_=\r\n-]+$/;

/** Describe a value that must stay metadata-only (blob refs, base64-like bodies), else null. */
export function binaryDescriptor(value) {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    if (typeof value.blob_id === "string" || typeof value.fetch_url === "string") {
      const d = { kind: "blob_ref" };
      for (const k of ["blob_id", "mime_type", "size_bytes", "sha256", "fetch_url"]) {
        if (value[k] !== undefined) d[k] = value[k];
      }
      return d;
    }
    return null;
  }
  if (typeof value !== "string") return null;
  if (/^data:[^,]{0,100};base64,/i.test(value) && value.length > 64) {
    const mt = /^data:([^;,]+)/i.exec(value);
    return { kind: "inline_binary", encoding: "base64", media_type: mt ? mt[1] : undefined, chars: value.length };
  }
  if (value.length >= 200 && !/\s/.test(value.slice(0, 200)) && BASE64_RE.test(value)) {
    return { kind: "inline_binary", encoding: "base64", chars: value.length };
  }
  return null;
}

/**
 * Parse an RS compact capability flag string ("t=string,eq,r=gte|lt,lex,a=max")
 * or a full field_capabilities object into one model.
 */
export function normalizeFieldCaps(name, caps) {
  const f = { name, type: null, role: null, granted: true, eq: false, range: [], lexical: false, semantic: false, agg: [], raw: undefined };
  if (typeof caps === "string") {
    f.raw = caps;
    if (caps === "declared") return f;
    for (const tok of caps.split(",")) {
      const [k, ...rest] = tok.split("=");
      const v = rest.join("=");
      const unusable = v.startsWith("unusable");
      switch (k) {
        case "t": f.type = v; break;
        case "role": f.role = v; break;
        case "g": if (v === "false") f.granted = false; break;
        case "eq": f.eq = !unusable; break;
        case "r": if (!unusable) f.range = v ? v.split("|") : ["gte", "gt", "lte", "lt"]; break;
        case "lex": f.lexical = !unusable; break;
        case "sem": f.semantic = !unusable; break;
        case "a": f.agg = v ? v.split("|").filter(Boolean) : []; break;
        default: break;
      }
    }
    return f;
  }
  if (caps && typeof caps === "object") {
    const usable = (x) => !!(x && (x.usable ?? x.declared));
    f.type = caps.type ?? jsonType(caps.schema);
    f.role = caps.role ?? null;
    f.granted = caps.granted !== false;
    f.eq = usable(caps.exact_filter);
    f.range = usable(caps.range_filter) ? caps.range_filter.operators ?? ["gte", "gt", "lte", "lt"] : [];
    f.lexical = usable(caps.lexical_search);
    f.semantic = usable(caps.semantic_search);
    const agg = caps.aggregation ?? {};
    f.agg = ["count_distinct", "group_by", "group_by_time", "max", "min", "sum"].filter((op) => usable(agg[op]));
  }
  return f;
}

function jsonType(schema) {
  if (!schema || typeof schema !== "object") return null;
  const t = Array.isArray(schema.type) ? schema.type.filter((x) => x !== "null").join("|") : schema.type;
  if (t === "string" && (schema.format === "date-time" || schema.format === "date")) return schema.format;
  return t ?? null;
}

/** One compact human line for a field; words instead of a mini-grammar. */
export function describeField(f) {
  const bits = [];
  if (f.type) bits.push(f.type);
  if (f.role) bits.push(`role ${f.role}`);
  if (!f.granted) bits.push("NOT granted");
  const filt = [];
  if (f.eq) filt.push("equals");
  if (f.range.length) filt.push(`range ${f.range.join("|")}`);
  if (filt.length) bits.push(`filter: ${filt.join(", ")}`);
  const srch = [];
  if (f.lexical) srch.push("lexical");
  if (f.semantic) srch.push("semantic");
  if (srch.length) bits.push(`search: ${srch.join("+")}`);
  if (f.agg.length) bits.push(`aggregate: ${f.agg.join(",")}`);
  return `${f.name}${bits.length ? ` (${bits.join("; ")})` : ""}`;
}

/** Title for a record-ish thing; never a snippet. */
export const AUTHORED_TIME_FIELDS = [
  "sent_at", "sentAt", "authored_at", "authoredAt", "created_at", "createdAt",
  "source_created_at", "sourceCreatedAt", "occurred_at", "occurredAt", "updated_at", "updatedAt",
];

export function authoredTime(data) {
  if (!data || typeof data !== "object") return null;
  for (const k of AUTHORED_TIME_FIELDS) {
    if (typeof data[k] === "string" && data[k]) return data[k];
  }
  return null;
}

export function fallbackTitle({ stream, recordId, label, when }) {
  const src = label ? `${label} ` : "";
  return `${src}${stream} record ${recordId}${when ? ` (${when})` : ""}`;
}

/** Stable JSON with bounded size for text blocks. */
export function jsonClip(value, max) {
  const s = JSON.stringify(value);
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
