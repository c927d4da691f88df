import json, subprocess, sys, os, itertools
class Stdio:
    def __init__(self, binary, rs_url, token="tok_client"):
        env = dict(os.environ, PDPP_CLIENT_TOKEN=token)
        self.p = subprocess.Popen([binary, "--rs-url", rs_url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        self.ids = itertools.count(1)
    def raw(self, line):
        self.p.stdin.write(line + "\n"); self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())
    def req(self, method, params=None):
        i = next(self.ids)
        m = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None: m["params"] = params
        return self.raw(json.dumps(m))
    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n"); self.p.stdin.flush()
    def call(self, name, args):
        return self.req("tools/call", {"name": name, "arguments": args})["result"]
    def close(self):
        self.p.stdin.close(); self.p.wait(5)
