package PdppMcpV::Render;
# Bounded, model-visible rendering of record payloads.
use v5.36;
use utf8;
use Exporter 'import';
use B ();
use JSON::PP ();
use PdppMcpV::Util qw(jcompact jsize is_hash is_array is_bool clip_chars looks_binary approx_bytes_for human_bytes);
our @EXPORT_OK = qw(bound_data sanitize_nested value_preview call_text blob_descriptor is_blob_ref field_sort);

# "tool {json args}" — how continuations are shown in text.
sub call_text ($tool, $args) { return $tool . ' ' . jcompact($args) }

sub is_blob_ref ($v) {
    return is_hash($v) && defined $v->{blob_id} && !ref $v->{blob_id} ? 1 : 0;
}

# Metadata-only description of a blob reference (+ export route when the RS
# advertised one through fetch_url).
sub blob_descriptor ($v, $rs, $connection_id) {
    my %d = (blob_id => "$v->{blob_id}");
    for my $k (qw(mime_type size_bytes sha256)) {
        $d{$k} = $v->{$k} if defined $v->{$k} && !ref $v->{$k};
    }
    if (defined $v->{fetch_url} && !ref $v->{fetch_url} && length $v->{fetch_url}) {
        my $u = $rs->absolute($v->{fetch_url});
        if (defined $connection_id && length $connection_id && $u !~ /[?&]connection_id=/) {
            $u .= ($u =~ /\?/ ? '&' : '?') . 'connection_id=' . PdppMcpV::Util::uri_escape($connection_id);
        }
        $d{export} = { method => 'GET', url => $u,
                       note => 'Grant-scoped blob read on the resource server with the same client token; not an MCP tool.' };
    } else {
        $d{export} = undef;
    }
    return \%d;
}

# Order fields for display: primary title first, long primary text last,
# everything else alphabetical.
sub field_sort ($keys, $title_field = undef, $text_field = undef) {
    my @k = sort @$keys;
    my @out;
    push @out, $title_field if defined $title_field && grep { $_ eq $title_field } @k;
    push @out, grep { !(defined $title_field && $_ eq $title_field) && !(defined $text_field && $_ eq $text_field) } @k;
    push @out, $text_field if defined $text_field && grep { $_ eq $text_field } @k;
    return \@out;
}

# Bound nested (non top-level) values: binary-like strings become a short
# placeholder, long strings are cut with an inline marker.  Returns the new
# value.
sub sanitize_nested ($v, $cap, $depth = 0) {
    if (!ref $v) {
        return $v unless defined $v;
        if (my $b = looks_binary($v)) {
            return sprintf('[binary-like %s value omitted: %d chars%s]', $b->{encoding}, length($v),
                $b->{encoding} eq 'binary' ? '' : ', ~' . human_bytes(approx_bytes_for($v, $b->{encoding})));
        }
        return $v if length($v) <= $cap;
        return substr($v, 0, $cap) . sprintf("\x{2026}[+%d chars cut]", length($v) - $cap);
    }
    return $v if is_bool($v);
    if ($depth > 12) { return '[nested value omitted: too deep]' }
    if (is_hash($v)) {
        return { map { $_ => sanitize_nested($v->{$_}, $cap, $depth + 1) } keys %$v };
    }
    if (is_array($v)) {
        my @a = @$v;
        my $n = @a;
        if ($n > 200) {
            @a = @a[0 .. 199];
            push @a, "[+" . ($n - 200) . " items cut]";
        }
        return [ map { sanitize_nested($_, $cap, $depth + 1) } @a ];
    }
    return "$v";
}

# Bound a record's top-level payload for structured output.
#   %o: cap (chars for strings), nested_cap (chars of JSON for objects),
#       read_base (hashref: args identifying the record for read_record_field),
#       fetch_base (hashref: args for fetch), rs, connection_id
# Returns { data, truncated, binary, blobs, omitted } (empty maps omitted).
sub bound_data ($data, %o) {
    my $cap        = $o{cap} // 2000;
    my $nested_cap = $o{nested_cap} // 4000;
    my (%out, %trunc, %bin, %blobs, %omit);
    return { data => $data } unless is_hash($data);
    for my $k (sort keys %$data) {
        my $v = $data->{$k};
        if (!ref $v && defined $v) {
            if (my $b = looks_binary($v)) {
                my %d = (total_chars => length($v), encoding => $b->{encoding});
                $d{approx_bytes} = approx_bytes_for($v, $b->{encoding}) unless $b->{encoding} eq 'binary';
                $d{media_type}   = $b->{media_type} if $b->{media_type};
                $d{read_record_field} = { %{ $o{read_base} }, field => $k, allow_binary => JSON::PP::true } if $o{read_base};
                $bin{$k} = \%d;
                next;
            }
            if (length($v) > $cap) {
                $out{$k} = substr($v, 0, $cap);
                $trunc{$k} = { total_chars => length($v), returned_chars => $cap };
                $trunc{$k}{read_record_field} = { %{ $o{read_base} }, field => $k, offset_chars => $cap } if $o{read_base};
                next;
            }
            $out{$k} = $v;
            next;
        }
        if (is_blob_ref($v)) {
            $out{$k} = $v;
            $blobs{$k} = blob_descriptor($v, $o{rs}, $o{connection_id}) if $o{rs};
            next;
        }
        if (ref $v && !is_bool($v)) {
            my $s = sanitize_nested($v, int($cap / 2) || 100);
            my $size = length(jcompact($s));
            if ($size > $nested_cap) {
                $omit{$k} = { json_chars => $size, reason => 'nested value too large for this result' };
                $omit{$k}{fetch} = { %{ $o{fetch_base} }, fields => [$k] } if $o{fetch_base};
                next;
            }
            $out{$k} = $s;
            next;
        }
        $out{$k} = $v;
    }
    my %r = (data => \%out);
    $r{truncated} = \%trunc if %trunc;
    $r{binary}    = \%bin   if %bin;
    $r{blobs}     = \%blobs if %blobs;
    $r{omitted}   = \%omit  if %omit;
    return \%r;
}

# One-line preview of a value for text output.  Returns ($text, $clipped).
sub value_preview ($v, $max) {
    if (!defined $v) { return ('null', 0) }
    if (is_bool($v)) { return ($v ? 'true' : 'false', 0) }
    if (!ref $v) {
        return (jcompact($v), 0) if _is_num($v);
        my ($t, $c) = clip_chars($v, $max);
        return (jcompact("$t"), $c);
    }
    my $j = jcompact($v);
    my ($t, $c) = clip_chars($j, $max);
    return ($t . ($c ? "\x{2026}" : ''), $c);
}

sub _is_num ($v) {
    my $b = B::svref_2object(\$v);
    my $f = $b->FLAGS;
    return ($f & (B::SVp_IOK() | B::SVp_NOK())) && !($f & B::SVp_POK()) ? 1 : 0;
}

1;
