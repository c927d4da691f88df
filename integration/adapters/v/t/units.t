#!/usr/bin/perl
# Unit tests for pure helpers (handles, previews, binary detection, UTF-8).
use v5.36;
use utf8;
use FindBin ();
use lib "$FindBin::RealBin/../lib";
use Test::More;
use PdppMcpV::Util qw(balanced_mark_preview looks_binary json_decode_bytes json_encode_bytes strip_marks);
use PdppMcpV::Handle qw(make_handle parse_handle);
use Encode ();

# Handles
my $h = make_handle('cin:a', 'mess%ages', 'id:with:colons');
is($h, 'cin%3Aa:mess%25ages:id:with:colons', 'handle encoding');
is_deeply(parse_handle($h), { connection_id => 'cin:a', stream => 'mess%ages', record_id => 'id:with:colons', form => 'handle' }, 'handle round trip');
is_deeply(parse_handle(':s:r'), { stream => 's', record_id => 'r', form => 'handle' }, 'handle without connection');
is_deeply(parse_handle('http://h:1/v1/streams/messages/records/m%2F1?connection_id=cin_w'),
    { stream => 'messages', record_id => 'm/1', connection_id => 'cin_w', form => 'url' }, 'url form');
is_deeply(parse_handle('/v1/streams/s/records/r1'), { stream => 's', record_id => 'r1', form => 'url' }, 'path form');
ok(!parse_handle('nonsense'), 'rejects junk');
ok(!parse_handle('a:b'), 'rejects two-part');

# Balanced previews
my $long = ('word ' x 200) . '<mark>needle</mark> ' . ('tail ' x 200);
my ($p, $c) = balanced_mark_preview($long, 120);
ok($c, 'clipped');
like($p, qr/<mark>needle<\/mark>/, 'match kept');
like($p, qr/word <mark>/, 'context before kept');
like($p, qr/<\/mark> tail/, 'context after kept');
ok(length(strip_marks($p)) <= 122, 'bounded');
($p) = balanced_mark_preview('a <mark>b c d e f g h i j k l m n o p q r s t u v w x y z</mark> end', 20);
is(scalar(() = $p =~ /<mark>/g), scalar(() = $p =~ /<\/mark>/g), 'tags balanced when cut inside a mark');
($p) = balanced_mark_preview('x </mark> y <mark>z', 100);
is($p, 'x  y <mark>z</mark>', 'unbalanced input repaired');

# Binary detection is content based
ok(!looks_binary('sunset over the bay'), 'plain text is not binary');
ok(!looks_binary('a' x 64), 'short strings are not binary');
ok(looks_binary(join('', map { ('QUJD', 'ZGVm', 'MTIz', 'eHl6') [ $_ % 4 ] } 1 .. 60)), 'base64 blob');
is(looks_binary('data:image/png;base64,iVBORw0KGgo=')->{media_type}, 'image/png', 'data URL media type');
ok(!looks_binary('0123456789abcdef' x 4), 'sha256-like hex is text');
ok(!looks_binary(('The quick brown fox. ' x 20)), 'prose is not binary');

# UTF-8 hygiene
my $d = json_decode_bytes(qq({"a":"\\ud800x","b":"\xff"}));
is($d->{a}, "\x{FFFD}x", 'lone surrogate escape repaired');
is($d->{b}, "\x{FFFD}", 'invalid UTF-8 replaced');
my $bytes = json_encode_bytes({ s => "é\x{1F600}" });
ok(Encode::decode('UTF-8', $bytes, Encode::FB_CROAK()), 'encoder emits valid UTF-8');

done_testing();
