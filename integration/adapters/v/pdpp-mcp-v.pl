#!/usr/bin/perl
# pdpp-mcp-v — PDPP MCP adapter (stdio).  Read-only, grant-scoped.
#
#   perl pdpp-mcp-v.pl --rs-url http://127.0.0.1:7777
#   (token from PDPP_CLIENT_TOKEN, PDPP_CLIENT_TOKEN_FILE or --token-file)
#
# See README.md.
use v5.36;
use utf8;
use FindBin ();
use lib "$FindBin::RealBin/lib";
use Getopt::Long qw(GetOptionsFromArray);
use PdppMcpV::RS;
use PdppMcpV::Tools;
use PdppMcpV::Server;

sub usage ($code = 0) {
    my $fh = $code ? \*STDERR : \*STDOUT;
    print $fh <<'EOT';
Usage: perl pdpp-mcp-v.pl --rs-url URL [--token-file PATH] [options]

Serves the PDPP read tools (schema, query_records, aggregate, search, fetch,
read_record_field) over MCP stdio, using one grant-scoped PDPP client token.

  --rs-url URL        Resource server origin (env PDPP_RS_URL), e.g.
                      http://127.0.0.1:7777  (a trailing /v1 is accepted)
  --token-file PATH   File holding the client token (env PDPP_CLIENT_TOKEN_FILE)
  --token TOKEN       Client token on the command line (visible to other local
                      users; prefer PDPP_CLIENT_TOKEN or --token-file)
  --timeout SECONDS   HTTP timeout per RS request (default 30)
  --verbose           Log RS requests (method and path, never the token) to stderr
  --version           Print the version and exit
  --help              This text

Token resolution order: --token, --token-file, PDPP_CLIENT_TOKEN,
PDPP_CLIENT_TOKEN_FILE.  Only grant-scoped client tokens are accepted: owner
or other non-client tokens are refused at startup.
EOT
    exit $code;
}

my %opt = (timeout => 30);
GetOptionsFromArray(\@ARGV,
    'rs-url=s'     => \$opt{rs_url},
    'token-file=s' => \$opt{token_file},
    'token=s'      => \$opt{token},
    'timeout=i'    => \$opt{timeout},
    'verbose!'     => \$opt{verbose},
    'version'      => \$opt{version},
    'help|h'       => \$opt{help},
) or usage(2);
usage(0) if $opt{help};
if ($opt{version}) { print "pdpp-mcp-v $PdppMcpV::Server::VERSION\n"; exit 0 }

sub die_cfg ($msg, $code = 2) {
    print STDERR "pdpp-mcp-v: $msg\n";
    exit $code;
}

my $rs_url = $opt{rs_url} // $ENV{PDPP_RS_URL};
die_cfg('no resource server URL: pass --rs-url or set PDPP_RS_URL') unless defined $rs_url && length $rs_url;
die_cfg("--rs-url must be an http(s) URL (got '$rs_url')") unless $rs_url =~ m{^https?://[^/\s]+}i;

sub read_token_file ($path) {
    open(my $fh, '<', $path) or die_cfg("cannot read token file '$path': $!");
    local $/;
    my $t = <$fh>;
    close $fh;
    $t //= '';
    $t =~ s/^\s+|\s+$//g;
    return $t;
}

my $token;
if (defined $opt{token})                      { $token = $opt{token} }
elsif (defined $opt{token_file})              { $token = read_token_file($opt{token_file}) }
elsif (length($ENV{PDPP_CLIENT_TOKEN} // ''))  { $token = $ENV{PDPP_CLIENT_TOKEN} }
elsif (length($ENV{PDPP_CLIENT_TOKEN_FILE} // '')) { $token = read_token_file($ENV{PDPP_CLIENT_TOKEN_FILE}) }
$token =~ s/^\s+|\s+$//g if defined $token;
$token =~ s/^Bearer\s+//i if defined $token;
die_cfg('no client token: set PDPP_CLIENT_TOKEN (or PDPP_CLIENT_TOKEN_FILE / --token-file)') unless defined $token && length $token;
die_cfg('the client token contains whitespace or control characters') if $token =~ /[\s\x00-\x1f\x7f]/;

my $rs    = PdppMcpV::RS->new(base_url => $rs_url, token => $token, timeout => $opt{timeout}, verbose => $opt{verbose});
my $tools = PdppMcpV::Tools->new(rs => $rs);

# Preflight: refuse owner (or any non-client) bearers before serving MCP.
{
    my $rs_probe = PdppMcpV::RS->new(base_url => $rs_url, token => $token, timeout => ($opt{timeout} < 10 ? $opt{timeout} : 10));
    my $probe_tools = PdppMcpV::Tools->new(rs => $rs_probe);
    my $p = $probe_tools->probe_token;
    if ($p->{error}) {
        my $code = $p->{error}{code} // '?';
        print STDERR "pdpp-mcp-v: could not verify the token at startup ($code: " . ($p->{error}{message} // '') . "); it will be verified before the first tool call.\n";
    } elsif (defined $p->{kind} && $p->{kind} ne 'client') {
        die_cfg("refusing to start: the configured token is a '$p->{kind}' token. This adapter only uses grant-scoped PDPP client tokens; configure a client token issued for a grant.", 3);
    } elsif (defined $p->{kind}) {
        $tools->mark_client($p->{grant_id});
        print STDERR "pdpp-mcp-v: serving grant " . ($p->{grant_id} // '?') . " from $rs_url over stdio\n" if $opt{verbose};
    }
}

my $server = PdppMcpV::Server->new(tools => $tools);
exit $server->run;
