#!/usr/bin/perl
# Regression coverage for the default tools/list payload and server
# instructions.  Runs in-process; no resource server needed.
#   prove -v t/       (or: perl t/footprint.t)
use v5.36;
use utf8;
use FindBin ();
use lib "$FindBin::RealBin/../lib";
use Test::More;
use PdppMcpV::Util qw(json_encode_bytes);
use PdppMcpV::RS;
use PdppMcpV::Tools;
use PdppMcpV::Server;

# Byte budget for the serialized tools/list result.  Raise it only together
# with a deliberate change to the tool surface.
use constant TOOLS_LIST_BUDGET => 10_240;

my $rs     = PdppMcpV::RS->new(base_url => 'http://127.0.0.1:9', token => 'test');
my $tools  = PdppMcpV::Tools->new(rs => $rs);
my $server = PdppMcpV::Server->new(tools => $tools);

my $init = $server->handle_message({ jsonrpc => '2.0', id => 1, method => 'initialize',
    params => { protocolVersion => '2025-11-25', capabilities => {}, clientInfo => { name => 't', version => '0' } } });
ok($init->{result}, 'initialize answers');
my $ins = $init->{result}{instructions};
ok(defined $ins && length $ins, 'server instructions are present');
my $head = substr($ins, 0, 512);
like($head, qr/schema/, 'first 512 chars: schema-first discovery');
like($head, qr/connection_id/, 'first 512 chars: connection_id disambiguation');
like($head, qr/[Ff]ilter.*typed|typed.*[Ff]ilter|[Ff]ilters are typed/, 'first 512 chars: typed filters');
like($head, qr/next_cursor/, 'first 512 chars: pagination');
like($head, qr/fields|limit/, 'first 512 chars: result narrowing');
unlike($ins, qr/owner[- ]token|control[- ]plane|owner bearer/i, 'instructions never mention owner/control-plane bearers');
is($init->{result}{protocolVersion}, '2025-11-25', 'negotiates the requested version');

my $list = $server->handle_message({ jsonrpc => '2.0', id => 2, method => 'tools/list' });
my @t = @{ $list->{result}{tools} };
is_deeply([ sort map { $_->{name} } @t ], [ sort qw(schema query_records aggregate search fetch read_record_field) ],
    'exactly the six read tools');
my $bytes = length json_encode_bytes($list->{result});
cmp_ok($bytes, '<=', TOOLS_LIST_BUDGET, "tools/list payload $bytes bytes within budget " . TOOLS_LIST_BUDGET);
diag("tools/list payload: $bytes bytes");

for my $tool (@t) {
    unlike($tool->{name}, qr/event|subscri|webhook|list_streams|fetch_blob|blob/i, "$tool->{name}: not an event/developer tool");
    ok($tool->{annotations}{readOnlyHint}, "$tool->{name}: read-only annotation");
    my $p = $tool->{inputSchema}{properties} // {};
    ok(!exists $p->{connector_instance_id}, "$tool->{name}: no connector_instance_id input");
    like($tool->{description}, qr{/v1/}, "$tool->{name}: names its RS endpoint");
    like($tool->{description}, qr/[Rr]ead-only/, "$tool->{name}: says it is read-only");
    cmp_ok(length($tool->{description}), '<=', 560, "$tool->{name}: description stays concise");
    unlike($tool->{description}, qr/hidden/i, "$tool->{name}: does not claim hidden structured output");
}
for my $name (qw(schema query_records aggregate search fetch)) {
    my ($tool) = grep { $_->{name} eq $name } @t;
    ok(exists $tool->{inputSchema}{properties}{connection_id}, "$name advertises optional connection_id");
}

# Cross-tool guidance must not be repeated verbatim across tool schemas.
my %cdesc;
for my $tool (@t) {
    my $d = $tool->{inputSchema}{properties}{connection_id}{description} // next;
    $cdesc{$d}++;
    cmp_ok(length($d), '<=', 80, "$tool->{name}: connection_id description is short");
}
ok(!grep({ $_ > 2 } values %cdesc), 'connection_id descriptions are not copied across tools');
my $longest_shared = 0;
my @descs = map { $_->{description} } @t;
for my $i (0 .. $#descs) {
    for my $j ($i + 1 .. $#descs) {
        # longest common sentence
        my %s = map { $_ => 1 } grep { length > 40 } split /(?<=\.)\s+/, $descs[$i];
        for my $sent (grep { length > 40 } split /(?<=\.)\s+/, $descs[$j]) {
            $longest_shared = length $sent if $s{$sent} && length $sent > $longest_shared;
        }
    }
}
is($longest_shared, 0, 'no long sentence is repeated verbatim across tool descriptions');

# Read tools describe structuredContent as structured output.
for my $name (qw(query_records fetch search)) {
    my ($tool) = grep { $_->{name} eq $name } @t;
    like($tool->{description}, qr/structuredContent/, "$name mentions structuredContent as structured output");
}

# Protocol basics.
my $r = $server->handle_message({ jsonrpc => '2.0', id => 3, method => 'tools/call', params => { name => 'list_streams', arguments => {} } });
is($r->{error}{code}, -32602, 'unknown tool is a JSON-RPC invalid-params error');
$r = $server->handle_message({ jsonrpc => '2.0', id => 4, method => 'nope' });
is($r->{error}{code}, -32601, 'unknown method');
$r = $server->handle_message({ jsonrpc => '2.0', method => 'notifications/initialized' });
ok(!defined $r, 'notifications get no response');
$r = $server->handle_message({ jsonrpc => '2.0', id => 5, method => 'ping' });
is_deeply($r->{result}, {}, 'ping');
$r = $server->handle_message({ jsonrpc => '2.0', id => 6, method => 'initialize',
    params => { protocolVersion => '2099-01-01', capabilities => {}, clientInfo => { name => 't', version => '0' } } });
is($r->{result}{protocolVersion}, '2025-11-25', 'unknown version: server proposes its latest');

done_testing();
