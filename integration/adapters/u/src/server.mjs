#!/usr/bin/env node
// Hosted PDPP MCP adapter: Streamable HTTP MCP endpoint at /mcp.
//
// Every /mcp request must carry "Authorization: Bearer <grant-scoped PDPP client token>". The token is
// classified against the RS before any MCP processing; owner-level bearers are refused with 403 and
// unknown/expired ones with 401 plus an RFC 9728 resource_metadata challenge.

import http from 'node:http';
import crypto from 'node:crypto';
import { HttpTransport } from '@tmcp/transport-http';

import { parseConfig, ConfigError, USAGE } from './config.mjs';
import { RsClient } from './rs-client.mjs';
import { createMcpServer, TOOL_NAMES, SERVER_NAME, SERVER_VERSION } from './mcp.mjs';

const MAX_BODY_BYTES = 1024 * 1024;
const TOKEN_CACHE_MS = 60_000;
const TOKEN_CACHE_MAX = 5000;
const SESSION_MAX = 10000;

export function start(config) {
  const log = config.quiet ? () => {} : (line) => process.stderr.write(`[pdpp-mcp] ${new Date().toISOString()} ${line}\n`);
  const rs = new RsClient({ rsBase: config.rsBase, rsTimeoutMs: config.rsTimeoutMs, log });
  const mcp = createMcpServer({ rs, log });
  const transport = new HttpTransport(mcp, {
    path: '/mcp',
    allowedOrigins: config.allowedOrigins,
    cors: config.allowedOrigins === true || (Array.isArray(config.allowedOrigins) && config.allowedOrigins.length)
      ? {
          origin: config.allowedOrigins === true ? '*' : config.allowedOrigins,
          exposedHeaders: ['mcp-session-id', 'www-authenticate'],
          allowedHeaders: ['authorization', 'content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'],
        }
      : undefined,
  });

  /** token hash -> { kind: 'ok' | 'owner' | 'invalid' | 'forbidden', error?, expires } */
  const tokenCache = new Map();
  /** mcp-session-id -> token hash */
  const sessions = new Map();
  let rsMetadata = { value: null, expires: 0 };

  const hashToken = (t) => crypto.createHash('sha256').update(t).digest('hex');

  function origin(req) {
    if (config.publicUrl) return config.publicUrl;
    const proto = (req.headers['x-forwarded-proto'] ?? '').split(',')[0].trim() || 'http';
    const host = req.headers['x-forwarded-host'] ?? req.headers.host ?? `${config.host}:${config.port}`;
    return `${proto}://${String(host).split(',')[0].trim()}`;
  }
  const metadataUrl = (req) => `${origin(req)}/.well-known/oauth-protected-resource/mcp`;

  async function classify(token) {
    const h = hashToken(token);
    const now = Date.now();
    const hit = tokenCache.get(h);
    if (hit && hit.expires > now) return hit;
    // A schema request scoped to a stream name no grant uses returns only the bearer block (cheap).
    const r = await rs.raw(token, '/v1/schema', { stream: '__pdpp_mcp_bearer_probe__' }).catch((err) => ({ status: 0, error: err }));
    let entry;
    if (r.status >= 200 && r.status < 300) {
      const b = r.json?.bearer ?? {};
      entry = b.token_kind === 'owner' || b.scope === 'owner' ? { kind: 'owner' } : { kind: 'ok', tokenKind: b.token_kind ?? null };
    } else if (r.status === 401) {
      entry = { kind: 'invalid', error: r.json?.error ?? null };
    } else if (r.status === 403) {
      entry = { kind: 'forbidden', error: r.json?.error ?? null };
    } else {
      return { kind: 'unavailable', status: r.status, error: r.error ?? r.json?.error ?? null };
    }
    entry.expires = now + TOKEN_CACHE_MS;
    if (tokenCache.size >= TOKEN_CACHE_MAX) tokenCache.delete(tokenCache.keys().next().value);
    tokenCache.set(h, entry);
    return entry;
  }

  function sendJson(res, status, body, headers = {}) {
    const s = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(s), ...headers });
    res.end(s);
  }

  function challenge(req, res, status, code, message) {
    sendJson(
      res,
      status,
      { error: { type: status === 401 ? 'authentication_error' : 'permission_error', code, message, resource_metadata: metadataUrl(req) } },
      {
        'www-authenticate':
          status === 401
            ? `Bearer resource_metadata="${metadataUrl(req)}"`
            : `Bearer error="insufficient_scope", error_description="grant-scoped client token required", resource_metadata="${metadataUrl(req)}"`,
      },
    );
  }

  async function authorizationServers() {
    if (config.authorizationServer) return [config.authorizationServer];
    const now = Date.now();
    if (rsMetadata.expires > now) return rsMetadata.value;
    let value = [];
    try {
      const r = await fetch(`${config.rsBase}/.well-known/oauth-protected-resource`, { signal: AbortSignal.timeout(5000) });
      if (r.ok) {
        const j = await r.json();
        if (Array.isArray(j.authorization_servers)) value = j.authorization_servers;
      }
    } catch {
      /* leave empty */
    }
    rsMetadata = { value, expires: now + 300_000 };
    return value;
  }

  async function protectedResourceMetadata(req) {
    const base = origin(req);
    return {
      resource: `${base}/mcp`,
      resource_name: 'PDPP MCP adapter (grant-scoped read)',
      authorization_servers: await authorizationServers(),
      bearer_methods_supported: ['header'],
      pdpp_token_kinds_supported: ['client'],
      pdpp_core_query_base: `${config.rsBase}/v1`,
      pdpp_mcp: {
        endpoint: `${base}/mcp`,
        transport: 'streamable_http',
        tools: TOOL_NAMES,
        read_only: true,
        no_owner_token: true,
        setup_intent: 'grant_scoped_read',
      },
    };
  }

  async function readBody(req) {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw Object.assign(new Error('body too large'), { status: 413 });
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  async function handleMcp(req, res) {
    const auth = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (req.method === 'OPTIONS') return bridge(req, res, null, null);
    if (!m) return challenge(req, res, 401, 'authentication_error', 'Missing Bearer token. Send the grant-scoped PDPP client token as "Authorization: Bearer <token>".');
    const token = m[1];
    const cls = await classify(token);
    if (cls.kind === 'invalid') {
      return challenge(req, res, 401, 'invalid_token', 'The bearer token is not a valid, active PDPP token (unknown, expired or revoked). Obtain a grant-scoped client token.');
    }
    if (cls.kind === 'owner') {
      log('refused owner-level bearer on /mcp');
      return challenge(
        req,
        res,
        403,
        'owner_token_rejected',
        'This MCP endpoint only accepts grant-scoped PDPP client tokens. Owner-level and control-plane bearers are refused; request a client grant instead.',
      );
    }
    if (cls.kind === 'forbidden') {
      const e = cls.error ?? {};
      return sendJson(res, 403, { error: { type: 'permission_error', code: e.code ?? 'forbidden', message: e.message ?? 'The grant behind this token is not usable.' } });
    }
    if (cls.kind === 'unavailable') {
      return sendJson(res, 502, { error: { type: 'api_error', code: 'rs_unavailable', message: 'The PDPP resource server could not verify the token right now; retry later.' } });
    }
    const th = hashToken(token);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string' && sessions.has(sid) && sessions.get(sid) !== th) {
      return sendJson(res, 403, { error: { type: 'permission_error', code: 'session_token_mismatch', message: 'This MCP session was opened with a different bearer token; start a new session.' } });
    }
    let body = null;
    if (req.method === 'POST') {
      try {
        body = await readBody(req);
      } catch (err) {
        return sendJson(res, err.status ?? 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: err.status === 413 ? 'Request body too large' : 'Could not read request body' } });
      }
    }
    const response = await bridge(req, res, body, { token });
    const newSid = response?.headers?.get('mcp-session-id');
    if (newSid && !sessions.has(newSid)) {
      if (sessions.size >= SESSION_MAX) sessions.delete(sessions.keys().next().value);
      sessions.set(newSid, th);
    }
    if (req.method === 'DELETE' && typeof sid === 'string') sessions.delete(sid);
  }

  /** Hand a node request to the tmcp Web-standard transport and stream the answer back. */
  async function bridge(req, res, body, custom) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v == null) continue;
      if (Array.isArray(v)) for (const x of v) headers.append(k, x);
      else headers.set(k, v);
    }
    const controller = new AbortController();
    const onClose = () => controller.abort();
    res.on('close', onClose);
    const init = { method: req.method, headers, signal: controller.signal };
    if (body && body.length) init.body = body;
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${url.pathname}${url.search}`, init);
    let response;
    try {
      response = await transport.respond(request, custom ?? undefined);
    } catch (err) {
      log(`transport error: ${err?.stack ?? err}`);
      sendJson(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
      return null;
    }
    if (!response) {
      sendJson(res, 404, { error: { code: 'not_found', message: 'Not found' } });
      return null;
    }
    const outHeaders = {};
    response.headers.forEach((v, k) => {
      outHeaders[k] = v;
    });
    res.writeHead(response.status, outHeaders);
    if (typeof res.flushHeaders === 'function') res.flushHeaders();
    if (!response.body) {
      res.end();
      return response;
    }
    const reader = response.body.getReader();
    res.on('close', () => reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((r) => res.once('drain', r));
      }
    } catch {
      /* client went away */
    }
    res.end();
    return response;
  }

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/mcp') return await handleMcp(req, res);
      if (req.method === 'GET' && (url.pathname === '/.well-known/oauth-protected-resource/mcp' || url.pathname === '/.well-known/oauth-protected-resource')) {
        return sendJson(res, 200, await protectedResourceMetadata(req));
      }
      if (req.method === 'GET' && url.pathname === '/healthz') return sendJson(res, 200, { ok: true, name: SERVER_NAME, version: SERVER_VERSION });
      if (req.method === 'GET' && url.pathname === '/llms.txt') {
        const base = origin(req);
        const body =
          `# PDPP MCP (grant-scoped, read-only)\n\n` +
          `MCP endpoint (Streamable HTTP): ${base}/mcp\n` +
          `Auth: send the grant-scoped PDPP client token as "Authorization: Bearer <token>" on every request.\n` +
          `Owner-level and control-plane bearers are refused. Metadata: ${base}/.well-known/oauth-protected-resource/mcp\n\n` +
          `Tools: ${TOOL_NAMES.join(', ')}. Start with schema(), then schema(stream, connection_id); see the server instructions sent at initialize.\n`;
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        return res.end(body);
      }
      return sendJson(res, 404, { error: { code: 'not_found', message: 'Not found. The MCP endpoint is /mcp.' } });
    } catch (err) {
      log(`request error: ${err?.stack ?? err}`);
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal_error', message: 'Internal error' } });
      else res.end();
    }
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      const addr = server.address();
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      const url = `http://${host}:${addr.port}/mcp`;
      process.stdout.write(`mcp_url=${url}\n`);
      log(`listening on ${url} (RS ${config.rsBase})`);
      resolve({ server, url, close: () => new Promise((r) => { transport.close().catch(() => {}); server.close(() => r()); server.closeAllConnections?.(); }) });
    });
  });
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/server.mjs');
if (isMain) {
  let config;
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (config.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  start(config).then(
    (handle) => {
      const stop = () => handle.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err) => {
      process.stderr.write(`failed to start: ${err?.message ?? err}\n`);
      process.exit(1);
    },
  );
}
