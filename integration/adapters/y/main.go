// Command pdpp-mcp-y is an MCP server exposing a PDPP resource server's
// grant-scoped read API as six read-only tools (stdio or Streamable HTTP).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"
)

func main() {
	fs := flag.NewFlagSet("pdpp-mcp-y", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	rsURL := fs.String("rs-url", os.Getenv("PDPP_RS_URL"), "PDPP resource server base URL (e.g. http://127.0.0.1:7662)")
	hosted := fs.Bool("http", false, "serve MCP Streamable HTTP at /mcp on 127.0.0.1 instead of stdio")
	port := fs.Int("port", 0, "HTTP port with --http (0 = pick a free port)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	logger := log.New(os.Stderr, "pdpp-mcp-y: ", log.LstdFlags)
	if *rsURL == "" {
		logger.Println("--rs-url is required")
		os.Exit(2)
	}
	rs, err := NewRSClient(*rsURL)
	if err != nil {
		logger.Println(err)
		os.Exit(2)
	}
	srv := &Server{rs: rs, logger: logger}
	if *hosted {
		if err := serveHTTP(srv, *port); err != nil {
			logger.Println(err)
			os.Exit(1)
		}
		return
	}
	token := os.Getenv("PDPP_CLIENT_TOKEN")
	if token != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		kind, rerr := rs.TokenKind(ctx, token)
		cancel()
		switch {
		case rerr != nil:
			logger.Printf("warning: could not verify PDPP_CLIENT_TOKEN at startup (%v); tool calls will re-check and fail closed", rerr)
		case kind != "client" && kind != "unknown":
			logger.Printf("refusing to start: PDPP_CLIENT_TOKEN is a %q bearer; this adapter only runs with grant-scoped client tokens (owner/control-plane bearers are rejected)", kind)
			os.Exit(3)
		}
	} else {
		logger.Println("warning: PDPP_CLIENT_TOKEN is not set; tool calls will return authentication errors")
	}
	serveStdio(srv, os.Stdin, os.Stdout, token)
}

// serveStdio reads newline-delimited JSON-RPC from in and writes responses to out.
// Requests are handled concurrently (bounded); writes are serialised.
func serveStdio(srv *Server, in io.Reader, out io.Writer, token string) {
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriter(out)
	var wmu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			msg := append([]byte(nil), line...)
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				resp := srv.Handle(context.Background(), msg, token)
				if resp == nil {
					return
				}
				wmu.Lock()
				w.Write(resp)
				w.WriteByte('\n')
				w.Flush()
				wmu.Unlock()
			}()
		}
		if err != nil {
			if err != io.EOF {
				fmt.Fprintln(os.Stderr, "pdpp-mcp-y: stdin:", err)
			}
			break
		}
	}
	wg.Wait()
}
