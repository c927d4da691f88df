package pdpp.x;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Entry point: stdio MCP (default) or hosted Streamable HTTP (--http). */
public final class Main {
    private Main() {}

    public static synchronized void log(String s) { System.err.println("[pdpp-mcp-x] " + s); System.err.flush(); }

    public static void main(String[] argv) throws Exception {
        String rsUrl = System.getenv("PDPP_RS_URL");
        boolean http = false; int port = 0;
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--rs-url": if (i + 1 < argv.length) rsUrl = argv[++i]; else usage("--rs-url needs a value"); break;
                case "--http": http = true; break;
                case "--port":
                    if (i + 1 >= argv.length) usage("--port needs a value");
                    try { port = Integer.parseInt(argv[++i]); } catch (NumberFormatException e) { usage("--port must be a number"); }
                    break;
                case "-h": case "--help": usage(null); break;
                default: usage("unknown argument " + argv[i]);
            }
        }
        if (rsUrl == null || !(rsUrl.startsWith("http://") || rsUrl.startsWith("https://"))) usage("--rs-url http(s)://... is required");
        Gateway gw = new Gateway(new RsClient(rsUrl));
        McpServer server = new McpServer(gw);
        if (http) { HttpMode.start(server, gw, port); return; }
        runStdio(server, gw);
    }

    private static void usage(String err) {
        if (err != null) System.err.println("error: " + err);
        System.err.println("usage: pdpp-mcp-x --rs-url URL [--http --port N]\n  stdio mode reads the grant-scoped client token from PDPP_CLIENT_TOKEN.");
        System.exit(err == null ? 0 : 2);
    }

    static void runStdio(McpServer server, Gateway gw) throws Exception {
        String token = System.getenv("PDPP_CLIENT_TOKEN");
        if (token != null) token = token.trim();
        if (token == null || token.isEmpty()) log("warning: PDPP_CLIENT_TOKEN is not set; tool calls will fail authentication");
        else {
            String ownerEnv = System.getenv("PDPP_OWNER_TOKEN");
            if (ownerEnv != null && ownerEnv.trim().equals(token)) {
                log("refusing to start: PDPP_CLIENT_TOKEN equals PDPP_OWNER_TOKEN (an owner bearer). Use a grant-scoped client token.");
                System.exit(3);
            }
            Gateway.Kind k = gw.classify(token);
            if (k == Gateway.Kind.OWNER) {
                log("refusing to start: PDPP_CLIENT_TOKEN is an owner bearer. This adapter only accepts grant-scoped client tokens.");
                System.exit(3);
            }
            if (k == Gateway.Kind.UNAUTHENTICATED) log("warning: the resource server rejected PDPP_CLIENT_TOKEN (401)");
            if (k == Gateway.Kind.UNKNOWN) log("warning: could not verify PDPP_CLIENT_TOKEN with the resource server yet; will re-check on each tool call");
        }
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err); // nothing but protocol messages on the real stdout
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            String resp;
            try { resp = server.handleText(line, token); }
            catch (Throwable t) { log("unexpected: " + t); resp = Json.write(McpServer.rpcError(null, -32603, "Internal error", null)); }
            if (resp != null) { out.print(resp); out.print('\n'); out.flush(); }
        }
    }
}
