package adapter

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addResources registers resource templates for host-controlled reads.
// They are a convenience: every handle they accept is also accepted by a
// model-callable tool (fetch / read_record_field).
func (a *Adapter) addResources(srv *mcp.Server, src TokenSource) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "record",
		Title:       "PDPP record document",
		URITemplate: "pdpp://record/{connection_id}/{stream}/{record_id}",
		Description: "One granted record as the fetch document JSON (same as the fetch tool).",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		tok, terr := a.token(ctx, src, req.Extra)
		if terr != nil {
			return nil, fmt.Errorf("%s: %s", terr.Code, terr.Message)
		}
		uri := req.Params.URI
		doc, err := a.fetchDocument(ctx, tok, fetchArgs{ID: uri})
		if err != nil {
			te := fromRS(err)
			if te.Code == "not_found" {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("%s: %s", te.Code, te.Message)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: compactJSON(doc)}}}, nil
	})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "blob",
		Title:       "PDPP blob",
		URITemplate: "pdpp://blob/{blob_id}{?connection_id}",
		Description: "Blob bytes through the grant-scoped route GET /v1/blobs/{blob_id} (bounded). The model-callable path is read_record_field with raw:true on the blob field.",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		tok, terr := a.token(ctx, src, req.Extra)
		if terr != nil {
			return nil, fmt.Errorf("%s: %s", terr.Code, terr.Message)
		}
		uri := req.Params.URI
		id, conn, err := parseBlobURI(uri)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		content, ctype, err := a.readBlob(ctx, tok, blobRef{BlobID: id}, conn)
		if err != nil {
			te := fromRS(err)
			if te.Code == "blob_not_found" || te.Code == "not_found" {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("%s: %s", te.Code, te.Message)
		}
		rc := &mcp.ResourceContents{URI: uri, MIMEType: ctype}
		if isTextMedia(ctype) {
			rc.Text = string(content)
		} else {
			rc.Blob = content
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
	})
}
