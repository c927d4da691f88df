// Test helpers: start the fake RS (if available) and connect an MCP client.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const FAKE_RS = process.env.FAKE_RS || "/tmp/cleanroom/pdpp-fake-rs";
export const haveFake = existsSync(FAKE_RS);

export async function startRs(extra = ["--profile", "spec"]) {
  const child = spawn(FAKE_RS, [...extra, "--addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
  const info = {};
  let buf = "";
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("fake RS did not start")), 10000);
    child.stdout.on("data", (d) => {
      buf += d;
      for (const line of buf.split("\n")) {
        const m = /^(\w+)=(.*)$/.exec(line.trim());
        if (m) info[m[1]] = m[2];
      }
      if (info.url && info.token && info.control_url !== undefined) {
        clearTimeout(t);
        resolve();
      }
    });
    child.on("exit", () => reject(new Error("fake RS exited")));
  });
  info.child = child;
  info.stop = () => child.kill();
  return info;
}

export async function connectStdio(rsUrl, token) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(DIR, "server.mjs"), "--rs-url", rsUrl],
    env: { ...process.env, PDPP_CLIENT_TOKEN: token },
    stderr: "ignore",
  });
  const client = new Client({ name: "w-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

export function textOf(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

export async function startHttp(rsUrl) {
  const child = spawn(process.execPath, [path.join(DIR, "server.mjs"), "--rs-url", rsUrl, "--http", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let buf = "";
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("adapter did not print mcp_url")), 15000);
    child.stdout.on("data", (d) => {
      buf += d;
      const m = /mcp_url=(\S+)/.exec(buf);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    child.on("exit", () => reject(new Error("adapter exited")));
  });
  return { url, child, stop: () => child.kill() };
}
