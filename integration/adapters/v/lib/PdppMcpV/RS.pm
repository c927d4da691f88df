package PdppMcpV::RS;
# Minimal client for the PDPP resource server's /v1 read API.
# Always sends the configured grant-scoped client token; never retries with
# any other credential; does not follow redirects.
use v5.36;
use utf8;
use HTTP::Tiny ();
use Encode ();
use PdppMcpV::Util qw(json_decode_bytes uri_escape is_hash);

our $VERSION = '1.0.0';

sub new ($class, %a) {
    my $base = $a{base_url} // die "base_url required\n";
    $base =~ s{/+$}{};
    $base =~ s{/v1$}{};
    my $self = bless {
        base    => $base,
        token   => $a{token},
        timeout => $a{timeout} // 30,
        verbose => $a{verbose} // 0,
        max_bytes => $a{max_bytes} // 64 * 1024 * 1024,
    }, $class;
    $self->{http} = HTTP::Tiny->new(
        agent           => "pdpp-mcp-v/$VERSION",
        timeout         => $self->{timeout},
        max_redirect    => 0,
        max_size        => $self->{max_bytes},
        verify_SSL      => 1,
        default_headers => { Accept => 'application/json' },
    );
    return $self;
}

sub base_url ($self) { return $self->{base} }

# Absolute URL for an RS path (for citations / export routes).
sub absolute ($self, $path) {
    return $path if $path =~ m{^[a-z][a-z0-9+.-]*://}i;
    $path = "/$path" unless $path =~ m{^/};
    return $self->{base} . $path;
}

# Build "k=v&k=v" from an arrayref of [key, value] pairs (order and
# repetition preserved).  Undefined values are skipped.
sub build_query ($pairs) {
    my @out;
    for my $p (@$pairs) {
        my ($k, $v) = @$p;
        next unless defined $v;
        push @out, uri_escape($k) . '=' . uri_escape($v);
    }
    return join '&', @out;
}

# GET a /v1 path.  $segments: arrayref of path segments after /v1 (each is
# percent-encoded).  Returns a hashref:
#   { ok => 1, status, body, request_id }
#   { ok => 0, status, error => {type, code, message, ...}, request_id }
sub get ($self, $segments, $pairs = []) {
    my $path = '/v1/' . join('/', map { uri_escape($_) } @$segments);
    my $qs   = build_query($pairs);
    my $url  = $self->{base} . $path . (length $qs ? "?$qs" : '');
    my %headers;
    $headers{Authorization} = "Bearer $self->{token}" if defined $self->{token} && length $self->{token};
    warn "pdpp-mcp-v: GET $path" . (length $qs ? "?$qs" : '') . "\n" if $self->{verbose};
    my $res = eval { $self->{http}->get($url, { headers => \%headers }) };
    if (!$res) {
        my $e = $@ || 'unknown failure';
        $e =~ s/\s+at \S+ line \d+.*//s;
        $e =~ s/\s+$//;
        return { ok => 0, status => 0, error => { type => 'rs_unavailable', code => 'rs_unreachable',
            message => "Could not reach the resource server: $e" } };
    }
    my $status = $res->{status} // 0;
    my $h      = $res->{headers} // {};
    my $rid    = $h->{'request-id'} // $h->{'x-request-id'};
    $rid = $rid->[0] if ref $rid eq 'ARRAY';
    if ($status == 599) {
        my $c = $res->{content} // '';
        $c =~ s/\s+at \S+ line \d+.*//s;
        $c =~ s/\s+$//;
        $c = substr($c, 0, 300);
        return { ok => 0, status => 0, error => { type => 'rs_unavailable', code => 'rs_unreachable',
            message => "Could not reach the resource server: $c" } };
    }
    my $ctype = $h->{'content-type'} // '';
    $ctype = $ctype->[0] if ref $ctype eq 'ARRAY';
    my $body;
    my $raw = $res->{content} // '';
    if (length $raw && ($ctype =~ m{json}i || $raw =~ /\A\s*[\{\[]/)) {
        $body = eval { json_decode_bytes($raw) };
    }
    if ($status >= 200 && $status < 300) {
        if (!defined $body || !is_hash($body)) {
            return { ok => 0, status => $status, request_id => $rid, error => {
                type => 'rs_error', code => 'invalid_rs_response',
                message => "The resource server returned a non-JSON or non-object body (HTTP $status, content-type '$ctype')." } };
        }
        return { ok => 1, status => $status, body => $body, request_id => $rid };
    }
    my $err;
    if (is_hash($body) && is_hash($body->{error})) {
        $err = { %{ $body->{error} } };
    } elsif (is_hash($body) && defined $body->{error} && !ref $body->{error}) {
        $err = { type => $body->{error}, code => $body->{error},
                 message => $body->{error_description} // $body->{message} // $body->{error} };
    } elsif (is_hash($body)) {
        $err = { %$body };
        $err->{code}    //= "http_$status";
        $err->{type}    //= 'rs_error';
        $err->{message} //= "HTTP $status from the resource server";
    } else {
        my $snippet = Encode::decode('UTF-8', substr($raw, 0, 300), Encode::FB_DEFAULT());
        $snippet =~ s/\s+/ /g;
        $err = { type => 'rs_error', code => "http_$status",
                 message => "HTTP $status from the resource server" . (length $snippet ? ": $snippet" : '') };
    }
    $err->{http_status} = $status;
    $err->{request_id} //= $rid if defined $rid;
    return { ok => 0, status => $status, error => $err, request_id => $rid };
}

1;
