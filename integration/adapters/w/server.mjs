#!/usr/bin/env node
// PDPP MCP adapter (fastmcp). Serves six grant-scoped read tools over stdio or
// hosted Streamable HTTP, forwarding only the client's grant-scoped bearer.
import net from "node:net";
import { FastMCP } from "fastmcp";
import { probeToken, RsClient } from "./lib/rs.mjs";
import { buildTools, INSTRUCTIONS } from "./lib/tools.mjs";

// Protocol output belongs to stdout; everything chatty goes to stderr.
const stdoutWrite = process.stdout.write.bind(process.stdout);
console.log = (...a) => console.error(...a);
console.info = (...a) => console.error(...a);
console.debug = () => {};

const logger = {
  debug() {},
  info() {},
  log: (...a) => console.error(...a),
  warn: (...a) => console.error(...a),
  error: (...a) => console.error(...a),
};

export function parseArgs(argv) {
  const opts = { rsUrl: process.env.PDPP_RS_URL, http: false, port: 0, host: "127.0.0.1", path: "/mcp" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (a.includes("=")) return a.slice(a.indexOf("=") + 1);
      i++;
      return argv[i];
    };
    if (a === "--rs-url" || a.startsWith("--rs-url=")) opts.rsUrl = val();
    else if (a === "--http") opts.http = true;
    else if (a === "--port" || a.startsWith("--port=")) opts.port = Number(val());
    else if (a === "--host" || a.startsWith("--host=")) opts.host = val();
    else if (a === "--help" || a === "-h") opts.help = true;
    else throw new Error(`Unknown argument: ${a}`);
  }
  return opts;
}

const USAGE = `Usage:
  node server.mjs --rs-url URL                 stdio; client token from env PDPP_CLIENT_TOKEN
  node server.mjs --rs-url URL --http --port N hosted Streamable HTTP at /mcp; clients send Authorization: Bearer <client token>
`;

async function freePort(host) {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, host, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function jsonResponse(status, body, headers = {}) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${e.message}\n${USAGE}`);
    process.exit(2);
  }
  if (opts.help) {
    process.stderr.write(USAGE);
    return;
  }
  if (!opts.rsUrl) {
    process.stderr.write(`--rs-url is required\n${USAGE}`);
    process.exit(2);
  }
  const rs = new RsClient(opts.rsUrl);

  if (!opts.http) {
    const token = process.env.PDPP_CLIENT_TOKEN?.trim();
    if (!token) {
      process.stderr.write("PDPP_CLIENT_TOKEN is not set; tools will answer with missing_client_token errors.\n");
    } else {
      const p = await probeToken(rs, token);
      if (p.kind === "owner") {
        process.stderr.write("Refusing to start: PDPP_CLIENT_TOKEN is an owner bearer. This adapter accepts only grant-scoped client tokens.\n");
        process.exit(3);
      }
    }
    const server = new FastMCP({ name: "pdpp-mcp-w", version: "0.1.0", instructions: INSTRUCTIONS, logger });
    for (const t of buildTools({ rs, getToken: () => token })) server.addTool(t);
    await server.start({ transportType: "stdio" });
    return;
  }

  // ------------------------------------------------------------ hosted
  const port = opts.port && opts.port > 0 ? opts.port : await freePort(opts.host);
  const origin = `http://${opts.host}:${port}`;
  const originOf = (req) => {
    const host = req?.headers?.host;
    return host ? `http://${host}` : origin;
  };
  const metadataUrl = (o) => `${o}/.well-known/oauth-protected-resource${opts.path}`;
  const kindCache = new Map(); // token -> {kind, at}
  const tokenBySession = new Map(); // mcp-session-id -> latest bearer

  const challenge = (req, status, code, message) => {
    const o = originOf(req);
    const meta = metadataUrl(o);
    const headers = status === 401 ? { "www-authenticate": `Bearer resource_metadata="${meta}"` } : {};
    return jsonResponse(
      status,
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32001,
          message,
          data: {
            type: status === 401 ? "authentication_error" : "permission_error",
            code,
            message,
            resource_metadata: meta,
            ...(status === 401 ? { next_step: "Fetch resource_metadata and obtain a grant-scoped PDPP client token; owner tokens are not accepted." } : {}),
          },
        },
      },
      headers,
    );
  };

  const authenticate = async (req) => {
    const h = req?.headers?.authorization;
    const raw = Array.isArray(h) ? h[0] : h;
    if (!raw || !/^Bearer\s+\S/.test(raw)) throw challenge(req, 401, "authentication_error", "Missing Bearer token");
    const token = raw.replace(/^Bearer\s+/, "").trim();
    let cached = kindCache.get(token);
    if (!cached || Date.now() - cached.at > 30000) {
      const p = await probeToken(rs, token);
      cached = { ...p, at: Date.now() };
      if (p.kind || p.status === 401 || p.status === 403) kindCache.set(token, cached);
    }
    if (cached.kind === "owner") {
      throw challenge(req, 403, "owner_token_rejected", "MCP requires a grant-scoped client token. Owner bearers are rejected.");
    }
    if (cached.status === 401) throw challenge(req, 401, "invalid_token", cached.error?.message ?? "Invalid or expired token");
    if (cached.status === 403) throw challenge(req, 403, cached.error?.code ?? "permission_error", cached.error?.message ?? "Grant is not usable");
    const sid = req?.headers?.["mcp-session-id"];
    if (typeof sid === "string" && sid) tokenBySession.set(sid, token);
    return { token };
  };

  const server = new FastMCP({
    name: "pdpp-mcp-w",
    version: "0.1.0",
    instructions: INSTRUCTIONS,
    logger,
    authenticate,
    health: { enabled: true, path: "/health" },
  });
  const getToken = (context) => {
    const sid = context?.sessionId;
    return (sid && tokenBySession.get(sid)) || context?.session?.token;
  };
  for (const t of buildTools({ rs, getToken })) server.addTool(t);

  let asCache = null;
  const rsMetadata = async () => {
    if (asCache && Date.now() - asCache.at < 60000) return asCache.body;
    const r = await rs.get("/.well-known/oauth-protected-resource", {}, null);
    const body = r.ok && r.body && typeof r.body === "object" ? r.body : {};
    asCache = { at: Date.now(), body };
    return body;
  };
  const metadataHandler = async (c) => {
    const o = originOf(c.env?.incoming);
    const up = await rsMetadata();
    return c.json({
      resource: `${o}${opts.path}`,
      resource_name: "PDPP MCP adapter (grant-scoped read)",
      authorization_servers: Array.isArray(up.authorization_servers) ? up.authorization_servers : [],
      bearer_methods_supported: ["header"],
      pdpp_core_query_base: `${rs.baseUrl}/v1`,
      pdpp_token_kinds_supported: ["client"],
      pdpp_agent_discovery: {
        advisory: true,
        mcp: {
          endpoint: `${o}${opts.path}`,
          transport: "streamable_http",
          no_owner_token: true,
          setup_intent: "grant_scoped_read",
          tool_surface: "profile_free_normal_read",
        },
      },
    });
  };
  const app = server.getApp();
  app.get("/.well-known/oauth-protected-resource", metadataHandler);
  app.get(`/.well-known/oauth-protected-resource${opts.path}`, metadataHandler);

  await server.start({
    transportType: "httpStream",
    httpStream: { port, host: opts.host, endpoint: opts.path },
  });
  stdoutWrite(`mcp_url=${origin}${opts.path}\n`);
}

main().catch((err) => {
  process.stderr.write(`fatal: ${err?.stack ?? err}\n`);
  process.exit(1);
});
