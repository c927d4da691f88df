// Asserts on what `inspector --cli` printed (pretty JSON of the result).
//
// usage: node inspector-assert.mjs tools FILE SURFACE_JSON   exactly the surface's tools
//        node inspector-assert.mjs search FILE               a search result, not isError
import { readFileSync } from "node:fs";

const [what, file, surfaceFile] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`inspector-assert: ${file}: ${msg}`);
  process.exit(1);
};

let result;
try {
  result = JSON.parse(readFileSync(file, "utf8"));
} catch (e) {
  fail(`not one JSON result: ${e.message}`);
}

switch (what) {
  case "tools": {
    const want = JSON.parse(readFileSync(surfaceFile, "utf8")).tools.slice().sort();
    const got = (result.tools ?? []).map((t) => t.name).sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) fail(`tools ${got.join(",")}, want ${want.join(",")}`);
    const undescribed = result.tools.filter((t) => !t.description).map((t) => t.name);
    if (undescribed.length > 0) fail(`tools without a description: ${undescribed.join(",")}`);
    break;
  }
  case "search": {
    if (result.isError) fail(`isError result: ${JSON.stringify(result.content)}`);
    const text = result.content?.find((c) => c.type === "text")?.text ?? "";
    if (!/^search: [1-9]\d* hit/.test(text)) fail(`text content ${JSON.stringify(text.slice(0, 80))}, want "search: N hit(s)…" with N > 0`);
    if (!Array.isArray(result.structuredContent?.results)) fail("no structuredContent.results");
    break;
  }
  default:
    fail(`unknown assertion ${what}`);
}
