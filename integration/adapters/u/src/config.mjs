// Configuration: command-line flags win over environment variables, which win over defaults.
//
//   --rs-url URL              PDPP_RS_URL              PDPP resource server base URL (required)
//   --host HOST               PDPP_MCP_HOST            listen host (default 127.0.0.1)
//   --port PORT               PDPP_MCP_PORT            listen port (default 8787; 0 = pick a free port)
//   --public-url URL          PDPP_MCP_PUBLIC_URL      externally visible origin of this adapter, used in
//                                                      the 401 challenge and protected-resource metadata
//                                                      (default: derived from each request's Host header)
//   --allowed-origins LIST    PDPP_MCP_ALLOWED_ORIGINS comma-separated browser origins allowed to call /mcp
//                                                      ("*" = any; default: none, i.e. only requests
//                                                      without an Origin header or same-origin requests)
//   --authorization-server U  PDPP_MCP_AUTHORIZATION_SERVER  advertised in protected-resource metadata
//                                                      (default: copied from the RS's own metadata)
//   --rs-timeout-ms N         PDPP_RS_TIMEOUT_MS       per-request timeout towards the RS (default 20000)
//   --quiet                   PDPP_MCP_QUIET=1         no per-call log lines on stderr

const FLAG_TO_KEY = {
  '--rs-url': 'rsUrl',
  '--host': 'host',
  '--port': 'port',
  '--public-url': 'publicUrl',
  '--allowed-origins': 'allowedOrigins',
  '--authorization-server': 'authorizationServer',
  '--rs-timeout-ms': 'rsTimeoutMs',
};

const ENV_TO_KEY = {
  PDPP_RS_URL: 'rsUrl',
  PDPP_MCP_HOST: 'host',
  PDPP_MCP_PORT: 'port',
  PDPP_MCP_PUBLIC_URL: 'publicUrl',
  PDPP_MCP_ALLOWED_ORIGINS: 'allowedOrigins',
  PDPP_MCP_AUTHORIZATION_SERVER: 'authorizationServer',
  PDPP_RS_TIMEOUT_MS: 'rsTimeoutMs',
};

/** Environment variables that would carry owner-level or control-plane bearers. */
export const OWNER_CREDENTIAL_ENV = [
  'PDPP_OWNER_TOKEN',
  'PDPP_OWNER_BEARER',
  'PDPP_OWNER_ACCESS_TOKEN',
  'PDPP_CONTROL_TOKEN',
  'PDPP_CONTROL_PLANE_TOKEN',
];

export const USAGE = `Usage: start.sh DEPSDIR --rs-url URL [--host HOST] [--port PORT] [--public-url URL]
                 [--allowed-origins LIST] [--authorization-server URL] [--rs-timeout-ms N] [--quiet]

Serves a Streamable HTTP MCP endpoint at /mcp. Each MCP request must carry the grant-scoped
PDPP client token as "Authorization: Bearer <token>"; owner/control-plane bearers are refused.
Environment equivalents: PDPP_RS_URL, PDPP_MCP_HOST, PDPP_MCP_PORT, PDPP_MCP_PUBLIC_URL,
PDPP_MCP_ALLOWED_ORIGINS, PDPP_MCP_AUTHORIZATION_SERVER, PDPP_RS_TIMEOUT_MS, PDPP_MCP_QUIET=1.`;

export class ConfigError extends Error {}

/**
 * @param {string[]} argv
 * @param {Record<string, string | undefined>} env
 */
export function parseConfig(argv, env) {
  /** @type {Record<string, string>} */
  const raw = {};
  for (const [name, key] of Object.entries(ENV_TO_KEY)) {
    if (env[name] != null && env[name] !== '') raw[key] = String(env[name]);
  }
  let quiet = env.PDPP_MCP_QUIET === '1' || env.PDPP_MCP_QUIET === 'true';
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (arg === '--quiet') {
      quiet = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const key = FLAG_TO_KEY[flag];
    if (!key) throw new ConfigError(`Unknown argument: ${arg}`);
    let value;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      value = argv[++i];
      if (value == null) throw new ConfigError(`Missing value for ${flag}`);
    }
    raw[key] = value;
  }
  if (help) return { help: true };

  for (const name of OWNER_CREDENTIAL_ENV) {
    if (env[name]) {
      throw new ConfigError(
        `Refusing to start: environment variable ${name} carries an owner-level or control-plane bearer. ` +
          'This adapter only serves grant-scoped client tokens sent per request; unset it and retry.',
      );
    }
  }

  if (!raw.rsUrl) throw new ConfigError('Missing --rs-url (or PDPP_RS_URL).');
  let rsUrl;
  try {
    rsUrl = new URL(raw.rsUrl);
  } catch {
    throw new ConfigError(`Invalid --rs-url: ${raw.rsUrl}`);
  }
  if (rsUrl.protocol !== 'http:' && rsUrl.protocol !== 'https:') {
    throw new ConfigError('--rs-url must be http(s).');
  }
  const rsBase = rsUrl.toString().replace(/\/+$/, '').replace(/\/v1$/, '');

  const port = raw.port == null ? 8787 : Number(raw.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`Invalid --port: ${raw.port}`);

  let publicUrl = null;
  if (raw.publicUrl) {
    try {
      publicUrl = new URL(raw.publicUrl).origin;
    } catch {
      throw new ConfigError(`Invalid --public-url: ${raw.publicUrl}`);
    }
  }

  /** @type {string[] | true} */
  let allowedOrigins = [];
  if (raw.allowedOrigins) {
    allowedOrigins =
      raw.allowedOrigins.trim() === '*'
        ? true
        : raw.allowedOrigins
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
  }

  const rsTimeoutMs = raw.rsTimeoutMs == null ? 20000 : Number(raw.rsTimeoutMs);
  if (!Number.isFinite(rsTimeoutMs) || rsTimeoutMs < 100) throw new ConfigError(`Invalid --rs-timeout-ms: ${raw.rsTimeoutMs}`);

  return {
    help: false,
    rsBase,
    host: raw.host || '127.0.0.1',
    port,
    publicUrl,
    allowedOrigins,
    authorizationServer: raw.authorizationServer || null,
    rsTimeoutMs,
    quiet,
  };
}
