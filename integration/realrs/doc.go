// Package realrs is the integration suite of pdpp-mcp and mcpcheck against
// the real PDPP reference resource server: the kit in ../shared/realrs
// (beside the checkout), started once by TestMain, or any real RS named by
// PDPP_REAL_RS_URL with its tokens in PDPP_REAL_RS_TOKEN_DIR.
//
// It drives pdpp-mcp over stdio and `pdpp-mcp serve` over HTTP through an
// agent's journey on every connector the RS holds tokens for (every tool,
// and every argument tools/list advertises), and runs `mcpcheck --url`
// against `pdpp-mcp serve` with each client token and the owner token.
//
// It runs when MCPCHECK_REALRS is set (`make realrs`, which `make ci`
// calls) or PDPP_REAL_RS_URL is, and skips saying so otherwise: the first
// start of the kit downloads about 127 MB from the npm registry.
package realrs
