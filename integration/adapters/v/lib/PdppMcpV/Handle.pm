package PdppMcpV::Handle;
# Record handles ("fetch ids").
#
#   <connection_id>:<stream>:<record_id>
#
# connection_id and stream have '%' and ':' percent-encoded; record_id is kept
# verbatim (it is the last component, so it may itself contain ':').  When the
# connection is unknown the first component is empty (":messages:m1").
#
# fetch and read_record_field also accept the document url this adapter
# returns (an RS record URL: [origin]/v1/streams/<stream>/records/<id>
# [?connection_id=...]).
use v5.36;
use utf8;
use Exporter 'import';
use Encode ();
our @EXPORT_OK = qw(make_handle parse_handle);

sub _enc ($s) {
    my $t = $s // '';
    $t =~ s/([%:])/sprintf('%%%02X', ord $1)/ge;
    return $t;
}

sub _dec ($s) {
    my $t = $s // '';
    $t =~ s/%(25|3[aA])/chr(hex $1)/ge;
    return $t;
}

sub _pct_decode_utf8 ($s) {
    my $b = $s;
    $b =~ s/%([0-9A-Fa-f]{2})/chr(hex $1)/ge;
    my $chars = eval { Encode::decode('UTF-8', $b, Encode::FB_CROAK()) };
    return defined $chars ? $chars : $b;
}

sub make_handle ($connection_id, $stream, $record_id) {
    return _enc($connection_id) . ':' . _enc($stream) . ':' . ($record_id // '');
}

# Returns { connection_id?, stream, record_id, form } or undef.
sub parse_handle ($id) {
    return undef unless defined $id && !ref $id;
    my $s = $id;
    $s =~ s/^\s+|\s+$//g;
    return undef if $s eq '';

    # URL / path form.
    if ($s =~ m{^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/]+)?(?:/[^?#]*?)?/v1/streams/([^/?#]+)/records/([^/?#]+)/?(?:\?([^#]*))?(?:#.*)?$}) {
        my ($st, $rid, $q) = ($1, $2, $3);
        my %h = (stream => _pct_decode_utf8($st), record_id => _pct_decode_utf8($rid), form => 'url');
        if (defined $q) {
            for my $pair (split /&/, $q) {
                my ($k, $v) = split /=/, $pair, 2;
                next unless defined $k;
                $k = _pct_decode_utf8($k);
                if ($k eq 'connection_id' && defined $v) {
                    $v =~ s/\+/ /g;
                    $h{connection_id} = _pct_decode_utf8($v);
                }
            }
        }
        return \%h;
    }

    my @p = split /:/, $s, 3;
    return undef unless @p == 3 && $p[1] ne '' && $p[2] ne '';
    my %h = (stream => _dec($p[1]), record_id => $p[2], form => 'handle');
    $h{connection_id} = _dec($p[0]) if $p[0] ne '';
    return \%h;
}

1;
