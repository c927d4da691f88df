package fakers

import (
	"strings"
)

// Token kinds.
const (
	KindClient = "client"
	KindOwner  = "owner"
)

// KindPackage is a hosted-MCP package token: meaningful at /mcp only, so
// REST reads treat it as unauthorized (contract §2.1).
const KindPackage = "mcp_package"

// KindControlPlane is an operator (control-plane) token: it manages the
// provider and never reads data, so REST reads refuse it with 403.
const KindControlPlane = "control_plane"

// Token states beyond "" (valid): how the auth gate answers (contract §2.2).
const (
	stateRevoked   = "revoked"   // 403 grant_revoked
	stateExpired   = "expired"   // 403 grant_expired
	stateMalformed = "malformed" // 403 grant_invalid
	stateLegacy    = "legacy"    // 401 authorization_state.unsupported_legacy_shape
	stateForeign   = "foreign"   // issued for another resource: unknown here, 401 authentication_error
)

type tokenInfo struct {
	kind  string
	state string
}

func (rs *RS) tokenOf(kind, state string) string {
	rs.dataMu.RLock()
	defer rs.dataMu.RUnlock()
	for t, info := range rs.tokens {
		if info.kind == kind && info.state == state {
			return t
		}
	}
	return ""
}

// Revoke revokes the grant behind a token: from now on the RS answers it
// 403 grant_revoked, as it does RevokedToken.
func (rs *RS) Revoke(token string) {
	rs.dataMu.Lock()
	defer rs.dataMu.Unlock()
	if info, ok := rs.tokens[token]; ok {
		info.state = stateRevoked
		rs.tokens[token] = info
	}
}

// ClientToken is the grant-scoped client token.
func (rs *RS) ClientToken() string { return rs.tokenOf(KindClient, "") }

// OwnerToken is the owner (self-export) token.
func (rs *RS) OwnerToken() string { return rs.tokenOf(KindOwner, "") }

// RevokedToken is a client token whose grant was revoked.
func (rs *RS) RevokedToken() string { return rs.tokenOf(KindClient, stateRevoked) }

// ExpiredToken is a client token whose grant expired.
func (rs *RS) ExpiredToken() string { return rs.tokenOf(KindClient, stateExpired) }

// MalformedGrantToken is a client token whose grant no longer parses.
func (rs *RS) MalformedGrantToken() string { return rs.tokenOf(KindClient, stateMalformed) }

// LegacyConsentToken is a client token from a persisted legacy authorization.
func (rs *RS) LegacyConsentToken() string { return rs.tokenOf(KindClient, stateLegacy) }

// PackageToken is a hosted-MCP package token, which REST reads refuse.
func (rs *RS) PackageToken() string { return rs.tokenOf(KindPackage, "") }

// ForeignResourceToken is a client token issued for another resource
// (audience): this RS does not know it and answers 401 authentication_error.
func (rs *RS) ForeignResourceToken() string { return rs.tokenOf(KindClient, stateForeign) }

// ControlPlaneToken is an operator token, which REST reads refuse with 403
// permission_error.
func (rs *RS) ControlPlaneToken() string { return rs.tokenOf(KindControlPlane, "") }

// authenticate is the gate of contract §2.2/§2.3.
func (rs *RS) authenticate(r *request, rt *route) *apiError {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return errf("authentication_error", "", "Missing Bearer token")
	}
	info, known := rs.tokens[tok]
	switch {
	case !known || info.kind == KindPackage || info.state == stateForeign:
		return errf("authentication_error", "", "Invalid or expired token")
	case info.kind == KindControlPlane:
		return errf("permission_error", "", "Control-plane tokens cannot read data; use a grant-scoped client token")
	case info.state == stateRevoked:
		return errf("grant_revoked", "", "Grant has been revoked")
	case info.state == stateExpired:
		return errf("grant_expired", "", "Grant has expired")
	case info.state == stateMalformed:
		return errf("grant_invalid", "", "Grant is malformed or no longer valid")
	case info.state == stateLegacy:
		return errf("authorization_state.unsupported_legacy_shape", "", "Fresh consent is required")
	}
	r.token = info
	if rt.streamed && r.client() {
		// Implementation, not spec: 401 context.* at the gate (contract §15 #1, #2).
		gs := r.fx.grantStream(r.params[0])
		if gs == nil {
			return errf("context.stream_not_allowed", "", "Token introspection failed closed")
		}
		if c := connectionParam(r); c != "" && !contains(gs.InstanceIDs, c) {
			return errf("context.instance_mismatch", "", "Token introspection failed closed")
		}
	}
	return nil
}

func (f *Fixture) grantStream(name string) *GrantStream {
	for i := range f.Grant.Streams {
		if f.Grant.Streams[i].Name == name {
			return &f.Grant.Streams[i]
		}
	}
	return nil
}

func grantedConnection(r *request, id string) bool {
	for _, gs := range r.fx.Grant.Streams {
		if contains(gs.InstanceIDs, id) {
			return true
		}
	}
	return false
}
