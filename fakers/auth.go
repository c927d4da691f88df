package fakers

import (
	"slices"
	"strings"
)

// Token kinds.
const (
	KindClient = "client"
	KindOwner  = "owner"
)

// KindPackage is a hosted-MCP package token: meaningful at /mcp only, so
// REST reads treat it as unauthorized (docs/RS-CONTRACT.md §2.1).
const KindPackage = "mcp_package"

// KindControlPlane is an operator (control-plane) token: it manages the
// provider and never reads data, so REST reads refuse it with 403.
const KindControlPlane = "control_plane"

// Token states beyond "" (valid): how the auth gate answers (docs/RS-CONTRACT.md §2.2).
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
	// connector binds a client token to one connector's streams and
	// connections, as every client token of the reference RS is (M1).
	connector string
	// minted: a client token issued through the control plane for a
	// harness's fork, never one of the RS's named tokens.
	minted bool
}

func (rs *RS) tokenOf(kind, state string) string {
	rs.dataMu.RLock()
	defer rs.dataMu.RUnlock()
	for t, info := range rs.tokens {
		if info.kind == kind && info.state == state && info.connector == "" && !info.minted {
			return t
		}
	}
	return ""
}

// MintClientToken issues a new grant-scoped client token, spanning every
// connector as ClientToken does: a fork of a hosted target's data goes
// with a bearer of its own, as another grant would, so an adapter's
// per-bearer caches never see one data set under another's token.
func (rs *RS) MintClientToken() (string, error) {
	tok, err := randomToken()
	if err != nil {
		return "", err
	}
	rs.dataMu.Lock()
	defer rs.dataMu.Unlock()
	rs.tokens[tok] = tokenInfo{kind: KindClient, minted: true}
	return tok, nil
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

// ClientToken is the grant-scoped client token. It spans every connector,
// as a hosted MCP package does, except on a [Fixture.RealRS] fixture, where
// it is bound to the first connector, as ClientTokenFor that one is.
func (rs *RS) ClientToken() string { return rs.tokenOf(KindClient, "") }

// ClientTokenFor is a client token bound to one connector: it reads that
// connector's streams on its connections only, as every client token of
// the reference RS does (one source per grant). "" for an unknown key.
func (rs *RS) ClientTokenFor(connector string) string {
	rs.dataMu.RLock()
	defer rs.dataMu.RUnlock()
	for t, info := range rs.tokens {
		if info.kind == KindClient && info.state == "" && info.connector == connector {
			return t
		}
	}
	return ""
}

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

// authenticate is the gate of docs/RS-CONTRACT.md §2.2/§2.3.
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
	r.grant = &r.fx.Grant
	if r.client() {
		r.grant = r.fx.clientGrant(info.connector)
	}
	if rt.streamed && r.client() {
		// Implementation, not spec: 401 context.* at the gate (docs/RS-CONTRACT.md §15 #1, #2).
		gs := r.grantStream(r.params[0])
		if gs == nil {
			return errf("context.stream_not_allowed", "", "Token introspection failed closed")
		}
		if c := connectionParam(r); c != "" && !slices.Contains(gs.InstanceIDs, c) {
			return errf("context.instance_mismatch", "", "Token introspection failed closed")
		}
	}
	return nil
}

// grantStream is the bearer's grant of a stream name, or nil.
func (r *request) grantStream(name string) *GrantStream {
	for i := range r.grant.Streams {
		if r.grant.Streams[i].Name == name {
			return &r.grant.Streams[i]
		}
	}
	return nil
}

// clientGrant is the grant a client token reads under: the fixture's grant,
// narrowed to one connector's streams, connections and declared fields when
// the token is bound to one. On a RealRS fixture an unbound client token is
// bound to the first connector.
func (f *Fixture) clientGrant(connector string) *Grant {
	if connector == "" && f.RealRS && len(f.Connectors) > 0 {
		connector = f.Connectors[0].Key
	}
	if connector == "" {
		return &f.Grant
	}
	g := &Grant{ID: f.Grant.ID + "_" + connector, ClientID: f.Grant.ClientID}
	c := f.Connector(connector)
	if c == nil {
		return g
	}
	for _, gs := range f.Grant.Streams {
		var ids, fields []string
		for _, id := range gs.InstanceIDs {
			if _, key, ok := f.Connection(id); ok && key == connector {
				ids = append(ids, id)
			}
		}
		for _, s := range f.StreamsNamed(gs.Name) {
			for _, fd := range gs.Fields {
				if s.Connector == connector && s.Field(fd) != nil && !slices.Contains(fields, fd) {
					fields = append(fields, fd)
				}
			}
		}
		if len(ids) > 0 {
			g.Streams = append(g.Streams, GrantStream{Name: gs.Name, Fields: fields, InstanceIDs: ids})
		}
	}
	return g
}

func grantedConnection(r *request, id string) bool {
	for _, gs := range r.grant.Streams {
		if slices.Contains(gs.InstanceIDs, id) {
			return true
		}
	}
	return false
}
