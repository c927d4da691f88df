package PdppMcpV::Util;
# Shared helpers: JSON codec, UTF-8 hygiene, bounded text, binary detection,
# highlight-balanced previews.  Core modules only.
use v5.36;
use utf8;
use JSON::PP ();
use Encode ();
use Exporter 'import';

our @EXPORT_OK = qw(
  json_decode_bytes json_decode_chars json_encode_chars json_encode_bytes
  scrub jcompact jsize is_true is_bool is_hash is_array
  clip_chars balanced_mark_preview strip_marks first_mark_text
  looks_binary approx_bytes_for human_bytes
  uri_escape pct_path
);

my $JSON_CHARS = JSON::PP->new->allow_nonref(1)->canonical(1)->allow_blessed(1)->convert_blessed(0);
my $JSON_BYTES = JSON::PP->new->utf8(1)->allow_nonref(1)->canonical(1)->allow_blessed(1)->convert_blessed(0);

# --- JSON -------------------------------------------------------------------

# Decode JSON given as raw bytes from the network or stdin.  Invalid UTF-8 is
# replaced (U+FFFD); lone surrogate escapes are repaired; the result is scrubbed
# so that anything we later emit is valid UTF-8.
sub json_decode_bytes ($bytes) {
    my $chars = Encode::decode('UTF-8', $bytes, Encode::FB_DEFAULT());
    return json_decode_chars($chars);
}

sub json_decode_chars ($chars) {
    my $d = eval { $JSON_CHARS->decode($chars) };
    if ($@) {
        my $err = $@;
        # Retry once with lone UTF-16 surrogate escapes replaced.
        (my $fixed = $chars) =~ s{(\\\\)|(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\u[dD][89a-fA-F][0-9a-fA-F]{2}}
                                 {defined $1 ? $1 : defined $2 ? $2 : '\\uFFFD'}ge;
        if ($fixed ne $chars) {
            $d = eval { $JSON_CHARS->decode($fixed) };
            die $err if $@;
        } else {
            die $err;
        }
    }
    return scrub($d);
}

sub json_encode_chars ($v) { return $JSON_CHARS->encode($v) }
sub json_encode_bytes ($v) { return $JSON_BYTES->encode($v) }

# Compact one-line JSON (characters).
sub jcompact ($v) { return $JSON_CHARS->encode($v) }

# Serialized size in UTF-8 bytes.
sub jsize ($v) { return length($JSON_BYTES->encode($v)) }

# Replace code points that cannot be encoded as valid UTF-8 (surrogates,
# beyond U+10FFFF) in every string of a decoded structure.
sub scrub ($v) {
    my $r = ref $v;
    if (!$r) {
        if (defined $v && utf8::is_utf8($v) && $v =~ /[\x{D800}-\x{DFFF}]|[^\x{0}-\x{10FFFF}]/) {
            $v =~ s/[\x{D800}-\x{DFFF}]|[^\x{0}-\x{10FFFF}]/\x{FFFD}/g;
        }
        return $v;
    }
    if ($r eq 'HASH') {
        my %h;
        for my $k (keys %$v) { $h{scrub($k)} = scrub($v->{$k}) }
        return \%h;
    }
    if ($r eq 'ARRAY') { return [ map { scrub($_) } @$v ] }
    return $v;    # JSON::PP::Boolean and friends
}

sub is_bool ($v) { return ref($v) && (ref($v) eq 'JSON::PP::Boolean') }
sub is_true ($v) {
    return 0 unless defined $v;
    return $v ? 1 : 0 if is_bool($v);
    return 0 if ref $v;
    return 1 if $v =~ /^(?:1|true|yes)$/i;
    return 0;
}
sub is_hash ($v)  { return ref($v) eq 'HASH' }
sub is_array ($v) { return ref($v) eq 'ARRAY' }

# --- text -------------------------------------------------------------------

# Clip a string to at most $n characters.  Returns ($text, $was_clipped).
sub clip_chars ($s, $n) {
    $s //= '';
    return ($s, 0) if length($s) <= $n;
    return (substr($s, 0, $n), 1);
}

# Parse text containing <mark>..</mark> into segments, repairing unbalanced
# tags.  Returns (plain_text, [ [start,end], ... ]) with mark ranges in plain
# text coordinates.
sub _parse_marks ($text) {
    my ($plain, @ranges, $open) = ('');
    for my $tok (split /(<\/?mark>)/i, $text // '') {
        next if $tok eq '';
        if ($tok =~ /^<mark>$/i) {
            $open = length($plain) unless defined $open;
        } elsif ($tok =~ /^<\/mark>$/i) {
            if (defined $open) {
                push @ranges, [ $open, length($plain) ] if length($plain) > $open;
                undef $open;
            }
        } else {
            $plain .= $tok;
        }
    }
    push @ranges, [ $open, length($plain) ] if defined $open && length($plain) > $open;
    return ($plain, \@ranges);
}

sub strip_marks ($text) {
    my ($plain) = _parse_marks($text);
    return $plain;
}

sub first_mark_text ($text) {
    my ($plain, $ranges) = _parse_marks($text);
    return undef unless @$ranges;
    return substr($plain, $ranges->[0][0], $ranges->[0][1] - $ranges->[0][0]);
}

# Bounded preview of a highlighted snippet: at most $max visible characters,
# centred so that the first highlighted match keeps surrounding context, with
# every <mark> balanced.  Returns ($preview, $was_clipped).
sub balanced_mark_preview ($text, $max) {
    my ($plain, $ranges) = _parse_marks($text);
    my $len = length $plain;
    my ($s, $e) = (0, $len);
    my $clipped = 0;
    if ($len > $max) {
        $clipped = 1;
        if (@$ranges) {
            my $m0 = $ranges->[0][0];
            my $before = int($max / 3);
            $s = $m0 - $before;
            $s = 0 if $s < 0;
            $e = $s + $max;
            if ($e > $len) { $e = $len; $s = $len - $max; $s = 0 if $s < 0 }
        } else {
            $e = $max;
        }
        # avoid cutting words when cheap
        if ($s > 0) {
            my $sp = index($plain, ' ', $s);
            $s = $sp + 1 if $sp >= 0 && $sp - $s < 24 && (!@$ranges || $sp < $ranges->[0][0]);
        }
        if ($e < $len) {
            my $sp = rindex($plain, ' ', $e);
            $e = $sp if $sp > $s && $e - $sp < 24 && (!@$ranges || $sp > $ranges->[0][1]);
        }
    }
    my $out = '';
    my $pos = $s;
    for my $r (@$ranges) {
        my ($a, $b) = @$r;
        next if $b <= $s || $a >= $e;
        $a = $s if $a < $s;
        $b = $e if $b > $e;
        $out .= substr($plain, $pos, $a - $pos) if $a > $pos;
        $out .= '<mark>' . substr($plain, $a, $b - $a) . '</mark>';
        $pos = $b;
    }
    $out .= substr($plain, $pos, $e - $pos) if $e > $pos;
    if ($clipped) {
        $out = "\x{2026}" . $out if $s > 0 && $out !~ /^\x{2026}/;
        $out .= "\x{2026}" if $e < $len && $out !~ /\x{2026}$/;
    }
    return ($out, $clipped);
}

# --- binary-like values ---------------------------------------------------------

# Content-based detection (never by field name).  Returns undef for ordinary
# text, or a descriptor { encoding => base64|hex|binary, media_type? }.
sub looks_binary ($s) {
    return undef if !defined($s) || ref($s);
    my $len = length $s;
    if ($s =~ m{\Adata:([A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+)?((?:;[^,;]*)*?);base64,}) {
        return { encoding => 'base64', ($1 ? (media_type => lc $1) : ()), data_url => JSON::PP::true };
    }
    return undef if $len < 120;
    my $sample = $len > 8192 ? substr($s, 0, 8192) : $s;
    my $slen = length $sample;
    my $ctrl = () = $sample =~ /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\x{FFFD}]/g;
    return { encoding => 'binary' } if $ctrl * 20 > $slen;
    if ($sample =~ /\A[A-Za-z0-9+\/_-]+(?:\r?\n[A-Za-z0-9+\/_-]+)*={0,2}\s*\z/ || ($len > 8192 && $sample =~ /\A[A-Za-z0-9+\/_\r\n-]+\z/)) {
        if ($sample =~ /\A[0-9a-fA-F\r\n]+\z/) {
            return $len >= 256 ? { encoding => 'hex' } : undef;
        }
        return { encoding => 'base64' }
          if $sample =~ /[A-Z]/ && $sample =~ /[a-z]/ && $sample =~ /[0-9+\/_-]/;
    }
    return undef;
}

sub approx_bytes_for ($s, $enc) {
    my $t = $s;
    if ($enc eq 'base64') {
        $t =~ s/\A[^,]*,// if $t =~ /\Adata:/;
        $t =~ s/[\s=]//g;
        return int(length($t) * 3 / 4);
    }
    if ($enc eq 'hex') { $t =~ s/\s//g; return int(length($t) / 2) }
    return length $t;
}

sub human_bytes ($n) {
    return "$n bytes" if $n < 1024;
    return sprintf('%.1f KiB', $n / 1024) if $n < 1024 * 1024;
    return sprintf('%.1f MiB', $n / (1024 * 1024));
}

# --- URLs -----------------------------------------------------------------------

sub uri_escape ($s) {
    my $b = Encode::encode('UTF-8', "$s");
    $b =~ s/([^A-Za-z0-9\-._~])/sprintf('%%%02X', ord $1)/ge;
    return $b;
}

sub pct_path ($s) { return uri_escape($s) }

1;
