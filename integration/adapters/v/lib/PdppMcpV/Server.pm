package PdppMcpV::Server;
# MCP over stdio: newline-delimited JSON-RPC 2.0.
use v5.36;
use utf8;
use JSON::PP ();
use PdppMcpV::Util qw(json_decode_bytes json_encode_bytes is_hash is_array);
use PdppMcpV::Tools;

our $VERSION = '1.0.0';
our @PROTOCOL_VERSIONS = ('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05');

use constant {
    PARSE_ERROR      => -32700,
    INVALID_REQUEST  => -32600,
    METHOD_NOT_FOUND => -32601,
    INVALID_PARAMS   => -32602,
    INTERNAL_ERROR   => -32603,
};

sub new ($class, %a) {
    my $self = bless {
        tools       => $a{tools},
        initialized => 0,
        protocol    => undef,
        out         => $a{out} // \*STDOUT,
    }, $class;
    return $self;
}

sub tools ($self) { return $self->{tools} }

sub _resp ($id, $result) { return { jsonrpc => '2.0', id => $id, result => $result } }
sub _err ($id, $code, $msg, $data = undef) {
    my %e = (code => $code, message => $msg);
    $e{data} = $data if defined $data;
    return { jsonrpc => '2.0', id => $id, error => \%e };
}

# Handle one decoded message.  Returns a response hash or undef (for
# notifications and client responses).
sub handle_message ($self, $msg) {
    if (!is_hash($msg)) {
        return _err(undef, INVALID_REQUEST, 'Invalid Request: expected a JSON object');
    }
    my $has_id = exists $msg->{id};
    my $id = $msg->{id};
    if ($has_id && defined $id && ref $id) {
        return _err(undef, INVALID_REQUEST, 'Invalid Request: id must be a string or number');
    }
    if (!defined $msg->{method}) {
        # A response to a request we never sent, or garbage.
        return undef if $has_id && (exists $msg->{result} || exists $msg->{error});
        return _err($has_id ? $id : undef, INVALID_REQUEST, 'Invalid Request: missing method');
    }
    if (ref $msg->{method} || ($msg->{jsonrpc} // '') ne '2.0') {
        return $has_id ? _err($id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0" and method a string') : undef;
    }
    my $method = $msg->{method};
    my $params = $msg->{params};
    if (defined $params && !is_hash($params) && !is_array($params)) {
        return $has_id ? _err($id, INVALID_PARAMS, 'params must be an object') : undef;
    }
    $params //= {};

    if (!$has_id) {    # notification
        $self->{initialized} = 1 if $method eq 'notifications/initialized';
        return undef;
    }

    my $r = eval { $self->_dispatch($method, $params, $id) };
    if (my $e = $@) {
        warn "pdpp-mcp-v: internal error handling $method: $e";
        return _err($id, INTERNAL_ERROR, 'Internal error');
    }
    return $r;
}

sub _dispatch ($self, $method, $params, $id) {
    if ($method eq 'initialize') {
        return _err($id, INVALID_PARAMS, 'initialize params must be an object') unless is_hash($params);
        my $req = $params->{protocolVersion};
        return _err($id, INVALID_PARAMS, 'initialize requires protocolVersion (string)') unless defined $req && !ref $req;
        my ($match) = grep { $_ eq $req } @PROTOCOL_VERSIONS;
        my $ver = $match // $PROTOCOL_VERSIONS[0];
        $self->{protocol} = $ver;
        return _resp($id, {
            protocolVersion => $ver,
            capabilities    => { tools => { listChanged => JSON::PP::false } },
            serverInfo      => { name => 'pdpp-mcp-v', title => 'PDPP personal data (read-only, grant-scoped)', version => $VERSION },
            instructions    => PdppMcpV::Tools::instructions(),
        });
    }
    if ($method eq 'ping') {
        return _resp($id, {});
    }
    if ($method eq 'tools/list') {
        return _resp($id, { tools => PdppMcpV::Tools::definitions() });
    }
    if ($method eq 'tools/call') {
        return _err($id, INVALID_PARAMS, 'tools/call params must be an object') unless is_hash($params);
        my $name = $params->{name};
        return _err($id, INVALID_PARAMS, 'tools/call requires a tool name') unless defined $name && !ref $name;
        return _err($id, INVALID_PARAMS, "Unknown tool: $name") unless $self->tools->has_tool($name);
        my $args = $params->{arguments};
        $args = {} unless defined $args;
        return _err($id, INVALID_PARAMS, 'tools/call arguments must be an object') unless is_hash($args);
        return _resp($id, $self->tools->call($name, $args));
    }
    return _err($id, METHOD_NOT_FOUND, "Method not found: $method");
}

# Serialize one message as a single line of valid UTF-8 JSON.
sub encode_line ($self, $msg) {
    my $line = json_encode_bytes($msg);
    return "$line\n";
}

sub _write ($self, $msg) {
    my $fh = $self->{out};
    my $buf = $self->encode_line($msg);
    my $off = 0;
    while ($off < length $buf) {
        my $n = syswrite($fh, $buf, length($buf) - $off, $off);
        if (!defined $n) {
            next if $!{EINTR};
            die "stdout closed: $!\n";
        }
        $off += $n;
    }
}

# Process one raw input line (bytes).
sub handle_line ($self, $line) {
    $line =~ s/\r?\n\z//;
    return if $line =~ /\A\s*\z/;
    my $msg = eval { json_decode_bytes($line) };
    if ($@) {
        $self->_write(_err(undef, PARSE_ERROR, 'Parse error'));
        return;
    }
    if (is_array($msg)) {
        # JSON-RPC batch (accepted for older clients).
        if (!@$msg) { $self->_write(_err(undef, INVALID_REQUEST, 'Invalid Request: empty batch')); return }
        my @out = grep { defined } map { $self->handle_message($_) } @$msg;
        $self->_write(\@out) if @out;
        return;
    }
    my $r = $self->handle_message($msg);
    $self->_write($r) if defined $r;
}

sub run ($self, $in = \*STDIN) {
    binmode($in, ':raw');
    binmode($self->{out}, ':raw');
    local $SIG{PIPE} = 'IGNORE';
    while (defined(my $line = <$in>)) {
        eval { $self->handle_line($line); 1 } or do {
            my $e = $@ || 'unknown';
            if ($e =~ /^stdout closed/) { last }
            warn "pdpp-mcp-v: $e";
        };
    }
    return 0;
}

1;
