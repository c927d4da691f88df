package PdppMcpV::Schema;
# Normalises /v1/schema documents (compact flag strings or full capability
# objects) into one internal shape, and resolves which granted connections a
# stream name refers to.
use v5.36;
use utf8;
use Exporter 'import';
use PdppMcpV::Util qw(is_hash is_array is_true);
our @EXPORT_OK = qw(schema_rows normalize_row parse_compact_caps bearer_info row_connections);

my @AGG_ORDER = qw(count_distinct group_by group_by_time max min sum);

sub bearer_info ($doc) {
    my $b = is_hash($doc) && is_hash($doc->{bearer}) ? $doc->{bearer} : {};
    return $b;
}

# Connections a row is readable under (deduplicated, order kept).
sub row_connections ($connector, $stream) {
    my @list;
    if (is_array($stream->{granted_connections}) && @{ $stream->{granted_connections} }) {
        @list = @{ $stream->{granted_connections} };
    } elsif (defined $stream->{connection_id} && !ref $stream->{connection_id}) {
        @list = ({ connection_id => $stream->{connection_id},
                   (defined $stream->{display_name} ? (display_name => $stream->{display_name}) : ()) });
    } elsif (is_hash($connector) && is_array($connector->{granted_connections})) {
        @list = @{ $connector->{granted_connections} };
    } elsif (is_hash($stream->{source}) && defined $stream->{source}{connection_id}) {
        @list = ({ connection_id => $stream->{source}{connection_id},
                   (defined $stream->{source}{display_name} ? (display_name => $stream->{source}{display_name}) : ()) });
    }
    my (%seen, @out);
    for my $c (@list) {
        my $id = is_hash($c) ? $c->{connection_id} : $c;
        next unless defined $id && !ref $id && length $id;
        next if $seen{$id}++;
        my %e = (connection_id => "$id");
        $e{display_name} = $c->{display_name} if is_hash($c) && defined $c->{display_name} && !ref $c->{display_name} && length $c->{display_name};
        push @out, \%e;
    }
    return \@out;
}

# Flatten a schema document into rows: [ { connector => {...}, stream => {...} } ].
sub schema_rows ($doc) {
    my @rows;
    return \@rows unless is_hash($doc);
    if (is_array($doc->{connectors})) {
        for my $c (@{ $doc->{connectors} }) {
            next unless is_hash($c);
            for my $s (@{ is_array($c->{streams}) ? $c->{streams} : [] }) {
                next unless is_hash($s) && defined $s->{name};
                push @rows, { connector => $c, stream => $s };
            }
        }
    }
    if (!@rows && is_array($doc->{streams})) {
        for my $s (@{ $doc->{streams} }) {
            next unless is_hash($s) && defined $s->{name};
            my $src = is_hash($s->{source}) ? $s->{source} : {};
            my $c = { connector_key => $s->{connector_key} // $src->{connector_key} // $src->{connector_id},
                      display_name  => $s->{connector_display_name} };
            push @rows, { connector => $c, stream => $s };
        }
    }
    return \@rows;
}

sub _tok_ops ($v) { return [ grep { length } split /\|/, ($v // '') ] }

# Parse one compact flag string ("t=string,role=primary-title,eq,r=gte|lt,lex,a=max|min").
sub parse_compact_caps ($str) {
    my %f = (granted => 1, eq => 0, range => [], lex => 0, sem => 0, agg => [], unusable => {});
    return \%f unless defined $str && !ref $str;
    return \%f if $str eq 'declared';
    for my $tok (split /,/, $str) {
        my ($k, $v) = split /=/, $tok, 2;
        next unless defined $k && length $k;
        if ($k eq 't')    { $f{type} = join('|', @{ _tok_ops($v) }) if defined $v; next }
        if ($k eq 'role') { $f{role} = $v if defined $v; next }
        if ($k eq 'g')    { $f{granted} = (defined $v && $v eq 'false') ? 0 : 1; next }
        if (defined $v && $v =~ /^unusable(?::(.*))?$/) {
            $f{unusable}{$k} = $1 // 'unusable';
            next;
        }
        if ($k eq 'eq')  { $f{eq} = 1; next }
        if ($k eq 'r')   { $f{range} = defined $v ? _tok_ops($v) : ['gte', 'gt', 'lte', 'lt']; $f{range_unspecified} = 1 unless defined $v; next }
        if ($k eq 'lex') { $f{lex} = 1; next }
        if ($k eq 'sem') { $f{sem} = 1; next }
        if ($k eq 'a')   { $f{agg} = _tok_ops($v); next }
    }
    return \%f;
}

sub _usable ($h) { return is_hash($h) && is_true($h->{usable}) }

sub _parse_full_caps ($cap, $prop) {
    my %f = (granted => 1, eq => 0, range => [], lex => 0, sem => 0, agg => [], unusable => {});
    $prop = $cap->{schema} if is_hash($cap) && is_hash($cap->{schema}) && !is_hash($prop);
    if (is_hash($cap)) {
        $f{granted} = exists $cap->{granted} ? (is_true($cap->{granted}) ? 1 : 0) : 1;
        $f{role} = $cap->{role} if defined $cap->{role} && !ref $cap->{role};
        $f{type} = $cap->{type} if defined $cap->{type} && !ref $cap->{type};
        $f{eq} = 1 if _usable($cap->{exact_filter});
        if (_usable($cap->{range_filter})) {
            $f{range} = is_array($cap->{range_filter}{operators}) ? [ @{ $cap->{range_filter}{operators} } ] : [ 'gte', 'gt', 'lte', 'lt' ];
        }
        $f{lex} = 1 if _usable($cap->{lexical_search});
        $f{sem} = 1 if _usable($cap->{semantic_search});
        if (is_hash($cap->{aggregation})) {
            $f{agg} = [ grep { _usable($cap->{aggregation}{$_}) } @AGG_ORDER ];
        }
        for my $k (qw(exact_filter range_filter lexical_search semantic_search)) {
            my $h = $cap->{$k};
            if (is_hash($h) && is_true($h->{declared}) && !is_true($h->{usable})) {
                $f{unusable}{$k} = $h->{reason} // 'unusable';
            }
        }
    }
    if (is_hash($prop)) {
        my $t = $prop->{type};
        $t = join('|', grep { $_ ne 'null' } @$t) if is_array($t);
        $f{json_type} = $t if defined $t && !ref $t && length $t;
        $f{format} = $prop->{format} if defined $prop->{format} && !ref $prop->{format};
        $f{type} //= ($f{format} && $f{format} =~ /^date(-time)?$/) ? ($f{format} eq 'date' ? 'date' : 'timestamp') : $f{json_type};
    }
    return \%f;
}

# Normalise one row into the adapter's internal description.
sub normalize_row ($row) {
    my ($c, $s) = ($row->{connector}, $row->{stream});
    my %n = (
        name           => "$s->{name}",
        connector_key  => $s->{connector_key} // $c->{connector_key} // $c->{connector_id} // (is_hash($c->{source}) ? $c->{source}{id} : undef),
        connector_name => (defined $c->{display_name} && !ref $c->{display_name}) ? $c->{display_name} : undef,
        connections    => row_connections($c, $s),
        record_count   => $s->{record_count},
        primary_key    => is_array($s->{primary_key}) ? $s->{primary_key} : [],
        cursor_field   => (defined $s->{cursor_field} && !ref $s->{cursor_field}) ? $s->{cursor_field} : undef,
        raw            => $s,
        connector_raw  => $c,
    );
    $n{connector_key} = "$n{connector_key}" if defined $n{connector_key};
    my $props = is_hash($s->{schema}) && is_hash($s->{schema}{properties}) ? $s->{schema}{properties} : {};
    my $caps  = is_hash($s->{field_capabilities}) ? $s->{field_capabilities} : {};
    my %fields;
    for my $fname (keys %$caps) {
        my $cap = $caps->{$fname};
        $fields{$fname} = ref $cap ? _parse_full_caps($cap, $props->{$fname}) : parse_compact_caps($cap);
    }
    for my $fname (keys %$props) {
        $fields{$fname} //= _parse_full_caps(undef, $props->{$fname});
    }
    $n{fields} = \%fields;
    $n{field_order} = [ sort keys %fields ];
    $n{caps_advertised} = (grep {
        my $f = $fields{$_};
        $f->{eq} || @{ $f->{range} } || $f->{lex} || $f->{sem} || @{ $f->{agg} } || defined $f->{type} || defined $f->{role}
    } keys %fields) ? 1 : 0;

    my @expand;
    for my $e (@{ is_array($s->{expand_capabilities}) ? $s->{expand_capabilities} : [] }) {
        next unless is_hash($e) && defined $e->{name};
        push @expand, {
            name          => $e->{name},
            target_stream => $e->{target_stream} // $e->{stream},
            cardinality   => $e->{cardinality},
            default_limit => $e->{default_limit},
            max_limit     => $e->{max_limit},
            usable        => exists $e->{usable} ? (is_true($e->{usable}) ? 1 : 0) : 1,
            reason        => $e->{reason},
        };
    }
    $n{expand} = \@expand;
    $n{expand_key_present} = exists $s->{expand_capabilities} ? 1 : 0;

    my $q = is_hash($s->{query}) ? $s->{query} : undef;
    if ($q) {
        $n{query} = $q;
        if (is_hash($q->{aggregations})) {
            $n{agg_count} = is_true($q->{aggregations}{count}) ? 1 : 0;
        }
    }
    $n{lexical_fields}  = [ grep { $fields{$_}{lex} } @{ $n{field_order} } ];
    $n{semantic_fields} = [ grep { $fields{$_}{sem} } @{ $n{field_order} } ];
    my %aggops;
    for my $fname (@{ $n{field_order} }) {
        push @{ $aggops{$_} }, $fname for @{ $fields{$fname}{agg} };
    }
    $n{agg_ops} = \%aggops;
    my ($title) = grep { ($fields{$_}{role} // '') eq 'primary-title' } @{ $n{field_order} };
    my ($text)  = grep { ($fields{$_}{role} // '') eq 'primary-text' } @{ $n{field_order} };
    $n{title_field} = $title;
    $n{text_field}  = $text;
    return \%n;
}

1;
