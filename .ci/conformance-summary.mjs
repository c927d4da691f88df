// Prints one line per scenario of an official MCP conformance suite run
// from its -o results directory, then a closing "N passed, N failed" line.
// The suite's own exit code (with --expected-failures) is the verdict; this
// only makes the log readable and names the failing checks.
//
// usage: node conformance-summary.mjs RESULTS_DIR BASELINE_YML
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const [resultsDir, baselineFile] = process.argv.slice(2);
if (!resultsDir || !baselineFile) {
  console.error("usage: node conformance-summary.mjs RESULTS_DIR BASELINE_YML");
  process.exit(2);
}

// The baseline is a flat YAML list under `server:`; entries are scenario names.
const baseline = new Set(
  [...readFileSync(baselineFile, "utf8").matchAll(/^\s+-\s+([\w:.-]+)\s*$/gm)].map((m) => m[1]),
);

const bad = (c) => c.status === "FAILURE" || c.status === "WARNING";
const dirs = readdirSync(resultsDir).filter((d) => d.startsWith("server-"));
if (dirs.length === 0) {
  console.error(`no scenario results in ${resultsDir}`);
  process.exit(1);
}
const rows = dirs.map((dir) => {
  // server-<scenario>-<ISO timestamp>
  const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
  const checks = JSON.parse(readFileSync(join(resultsDir, dir, "checks.json"), "utf8"));
  const ok = checks.filter((c) => c.status === "SUCCESS").length;
  const problems = checks.filter(bad);
  let verdict;
  if (baseline.has(scenario)) verdict = problems.length > 0 ? "n/a" : "STALE"; // passes, yet listed
  else if (problems.length > 0) verdict = "FAIL";
  else verdict = ok > 0 ? "pass" : "info"; // nothing to check, e.g. sessions on a stateless server
  return { scenario, ok, problems, verdict };
});
const order = ["FAIL", "STALE", "pass", "info", "n/a"];
rows.sort((a, b) => order.indexOf(a.verdict) - order.indexOf(b.verdict) || a.scenario.localeCompare(b.scenario));
const count = (v) => rows.filter((r) => r.verdict === v).length;
for (const r of rows) {
  console.log(`  ${r.verdict.padEnd(5)} ${r.scenario} (${r.ok} checks passed)`);
  if (r.verdict === "FAIL") {
    for (const c of r.problems) {
      const why = String(c.errorMessage ?? c.details?.message ?? c.description).replace(/\s+/g, " ");
      console.log(`        ${c.status} ${c.id}: ${why.slice(0, 300)}`);
    }
  }
}
console.log(`n/a: ${count("n/a")} scenarios listed in ${baselineFile.split("/").pop()}; info: ${count("info")} with nothing to check`);
console.log(`official-conformance: ${count("pass")} passed, ${count("FAIL") + count("STALE")} failed`);
