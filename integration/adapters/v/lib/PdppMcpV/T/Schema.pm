package PdppMcpV::T::Schema;
# schema tool: compact global index, stream-scoped capability summary, and
# stream-scoped exhaustive detail.
use v5.36;
use utf8;
use JSON::PP ();
use PdppMcpV::Util qw(jcompact jsize is_hash is_array is_true clip_chars);
use PdppMcpV::Schema qw(schema_rows normalize_row);
use PdppMcpV::Render qw(call_text);

use constant {
    INDEX_TEXT_BUDGET => 9000,      # chars of detailed index rows in text
    INDEX_CONN_LIST   => 30,        # connections listed per connector in the index
    SCOPED_TEXT_BUDGET => 30000,    # chars of detailed rows for one stream name
    SCOPED_CONN_LIST  => 60,
    FULL_BUDGET       => 120_000,   # bytes for the exhaustive document
    RAW_TEXT_MAX      => 9000,
};

sub run ($t, $args) {
    my $v = $t->validate('schema', $args, [
        [ stream        => 'string' ],
        [ connection_id => 'string' ],
        [ detail        => 'string', enum => [qw(compact full)] ],
    ]);
    my $detail = $v->{detail} // 'compact';
    if ($detail eq 'full' && !defined $v->{stream}) {
        return $t->error_result({
            type => 'invalid_request_error', code => 'invalid_argument', param => 'detail', retry_with => 'stream',
            message => 'detail "full" needs a stream: exhaustive JSON Schema is only served for one stream at a time, never for the whole grant. No request was made.',
        }, 'Call schema {} for the compact index, pick a stream, then call schema {"stream":"<name>","connection_id":"<id>","detail":"full"} (connection_id when the stream has several connections).');
    }
    return _index($t, $v) unless defined $v->{stream};
    return _full($t, $v) if $detail eq 'full';
    return _scoped($t, $v);
}

# ---------------------------------------------------------------------------
sub _conn_label ($c) {
    return $c->{connection_id} . (defined $c->{display_name} ? ' "' . $c->{display_name} . '"' : '');
}

sub _caps_tags ($row) {
    my @t;
    my @s;
    push @s, 'lexical'  if @{ $row->{lexical_fields} };
    push @s, 'semantic' if @{ $row->{semantic_fields} };
    push @t, 'search: ' . join('+', @s) if @s;
    push @t, 'aggregate' if %{ $row->{agg_ops} } || $row->{agg_count};
    my @ex = map { $_->{name} } grep { $_->{usable} } @{ $row->{expand} };
    push @t, 'expand: ' . join(',', @ex) if @ex;
    push @t, scalar(@{ $row->{field_order} }) . ' fields' if @{ $row->{field_order} };
    return \@t;
}

sub _index ($t, $v) {
    my @q = ([ view => 'compact' ]);
    push @q, [ connection_id => $v->{connection_id} ] if defined $v->{connection_id};
    my $r = $t->rs->get(['schema'], \@q);
    if (!$r->{ok} && ($r->{status} // 0) == 400) {
        $r = $t->rs->get(['schema'], [ grep { $_->[0] ne 'view' } @q ]);
    }
    return $t->rs_error_result($r->{error}) unless $r->{ok};
    $t->note_bearer($r->{body});
    my $gate = $t->ensure_client_token;
    return $gate if $gate;

    my $conn_filter = $v->{connection_id};
    my @rows = map { normalize_row($_) } @{ schema_rows($r->{body}) };
    if (defined $conn_filter) {
        @rows = grep { grep { $_->{connection_id} eq $conn_filter } @{ $_->{connections} } } @rows;
        if (!@rows) {
            return $t->error_result({ type => 'invalid_request_error', code => 'connection_not_found', param => 'connection_id',
                message => "connection_id '$conn_filter' is not a granted connection of this grant." },
                'Call schema {} without connection_id for the index of granted connections.');
        }
        for my $row (@rows) { $row->{connections} = [ grep { $_->{connection_id} eq $conn_filter } @{ $row->{connections} } ] }
    }

    # Group by connector identity, preserving RS order.
    my (@order, %groups);
    for my $row (@rows) {
        my $ck = $row->{connector_key} // '(unknown connector)';
        if (!$groups{$ck}) {
            push @order, $ck;
            $groups{$ck} = { connector_key => $ck, display_name => $row->{connector_name}, rows => [], conns => [], seen => {} };
        }
        my $g = $groups{$ck};
        push @{ $g->{rows} }, $row;
        for my $c (@{ $row->{connections} }) {
            push @{ $g->{conns} }, $c unless $g->{seen}{ $c->{connection_id} }++;
        }
    }
    my %all_conns;
    $all_conns{ $_->{connection_id} }++ for map { @{ $groups{$_}{conns} } } @order;
    my $bearer = is_hash($r->{body}{bearer}) ? $r->{body}{bearer} : {};

    # Streams whose name needs connection_id.
    my %name_conns;
    for my $row (@rows) {
        push @{ $name_conns{ $row->{name} } }, map { [ $row->{connector_key} // '?', $_->{connection_id} ] } @{ $row->{connections} };
    }
    my @multi = grep { @{ $name_conns{$_} } > 1 } sort keys %name_conns;

    my @lines;
    push @lines, sprintf('PDPP schema index%s: %d connector%s, %d stream%s, %d connection%s. Read-only, limited to this grant.',
        (defined $bearer->{grant_id} ? " (grant $bearer->{grant_id})" : ''),
        scalar(@order), (@order == 1 ? '' : 's'), scalar(@rows), (@rows == 1 ? '' : 's'),
        scalar(keys %all_conns), (keys(%all_conns) == 1 ? '' : 's'));
    push @lines, "Filtered to connection_id $conn_filter." if defined $conn_filter;
    push @lines, 'Next: ' . call_text('schema', { stream => '<name>' }) . ' for fields, filter operators, sort, projection, count, search, expand and aggregation support (add "connection_id" to narrow a shared stream).';
    push @lines, '';

    my $used = 0;
    my $capped = 0;
    my @sc_connectors;
    for my $ck (@order) {
        my $g = $groups{$ck};
        my @conns = @{ $g->{conns} };
        my @shown = @conns > INDEX_CONN_LIST ? @conns[ 0 .. INDEX_CONN_LIST - 1 ] : @conns;
        my $head = "connector $ck" . (defined $g->{display_name} ? ' "' . $g->{display_name} . '"' : '')
          . ' · ' . scalar(@{ $g->{rows} }) . ' stream' . (@{ $g->{rows} } == 1 ? '' : 's')
          . ' · connection' . (@conns == 1 ? '' : 's') . ': ' . join(', ', map { _conn_label($_) } @shown)
          . (@conns > @shown ? ', +' . (@conns - @shown) . ' more (see schema with stream)' : '');
        push @lines, $head;
        $used += length $head;
        my %gconn = map { $_->{connection_id} => 1 } @conns;
        my (@detail, @names_only);
        for my $row (@{ $g->{rows} }) {
            my $line = '  - ' . $row->{name};
            my @p;
            push @p, "$row->{record_count} records" if defined $row->{record_count} && !ref $row->{record_count};
            my @rc = map { $_->{connection_id} } @{ $row->{connections} };
            if (@conns > 1 && @rc != @conns) {
                push @p, 'connection' . (@rc == 1 ? '' : 's') . ': ' . join(',', @rc);
            }
            push @p, @{ _caps_tags($row) };
            $line .= ' (' . join('; ', @p) . ')' if @p;
            if (!$capped && $used + length($line) <= INDEX_TEXT_BUDGET) {
                push @lines, $line;
                $used += length $line;
                my %d = (name => $row->{name});
                $d{record_count} = $row->{record_count} if defined $row->{record_count};
                $d{connections}  = \@rc if @conns > 1 && @rc != @conns;
                my $tags = _caps_tags($row);
                $d{capabilities} = [ grep { !/ fields$/ } @$tags ] if grep { !/ fields$/ } @$tags;
                $d{field_count}  = scalar @{ $row->{field_order} };
                push @detail, \%d;
            } else {
                $capped = 1;
                push @names_only, $row->{name};
            }
        }
        if (@names_only) {
            my $l = '  streams (names only): ' . join(', ', @names_only);
            push @lines, $l;
        }
        my %c = (connector_key => $ck, connections => [ map { { %$_ } } @conns ], streams => \@detail);
        $c{display_name} = $g->{display_name} if defined $g->{display_name};
        $c{stream_names} = \@names_only if @names_only;
        push @sc_connectors, \%c;
    }
    push @lines, '';
    push @lines, 'Row tags: search modes available, aggregate = aggregations declared, expand = expandable relations, N fields = granted field count; "connections:" on a row = the subset of the connector\'s connections that carry that stream.' if @rows;
    if ($capped) {
        push @lines, 'Detailed rows were capped to keep this result bounded; every granted stream is still named above under its connector. Call schema with a stream for its details.';
    }
    if (@multi) {
        my @m = @multi > 8 ? @multi[ 0 .. 7 ] : @multi;
        push @lines, 'Streams with several connections (pass connection_id to query_records, fetch and read_record_field): '
          . join('; ', map {
                my $n = $_;
                my %byc;
                push @{ $byc{ $_->[0] } }, $_->[1] for @{ $name_conns{$n} };
                my @parts = map { my $l = $byc{$_}; "$_: " . (@$l > 4 ? join(',', @$l[0 .. 3]) . ',+' . (@$l - 4) : join(',', @$l)) } sort keys %byc;
                "$n (" . join('; ', @parts) . ')';
            } @m)
          . (@multi > @m ? '; +' . (@multi - @m) . ' more' : '') . '.';
    }
    if (!@rows) {
        push @lines, defined $conn_filter ? "No granted streams under connection_id $conn_filter. Call schema without connection_id for the full index." : 'This grant exposes no streams.';
    }
    my $sc = { data => {
        object           => 'schema_index',
        (defined $bearer->{grant_id} ? (grant_id => $bearer->{grant_id}) : ()),
        connector_count  => scalar(@order),
        stream_count     => scalar(@rows),
        connection_count => scalar(keys %all_conns),
        detail_rows_capped => ($capped ? JSON::PP::true : JSON::PP::false),
        connectors       => \@sc_connectors,
        (defined $conn_filter ? (connection_id => $conn_filter) : ()),
        (@multi ? (multi_connection_streams => \@multi) : ()),
    } };
    return { content => [ { type => 'text', text => join("\n", @lines) } ], structuredContent => $sc };
}

# ---------------------------------------------------------------------------
sub _fetch_stream_rows ($t, $stream, $conn) {
    my @q = ([ stream => $stream ]);
    push @q, [ connection_id => $conn ] if defined $conn;
    my $r = $t->rs->get(['schema'], \@q);    # full view, scoped
    if (!$r->{ok} && ($r->{status} // 0) != 401 && ($r->{status} // 0) != 403) {
        my $r2 = $t->rs->get(['schema'], [ [ view => 'compact' ], @q ]);
        $r = $r2 if $r2->{ok};
    }
    return (undef, $r->{error}) unless $r->{ok};
    $t->note_bearer($r->{body});
    my @rows = map { normalize_row($_) } grep { $_->{stream}{name} eq $stream } @{ schema_rows($r->{body}) };
    if (defined $conn) {
        @rows = grep { grep { $_->{connection_id} eq $conn } @{ $_->{connections} } } @rows;
        $_->{connections} = [ grep { $_->{connection_id} eq $conn } @{ $_->{connections} } ] for @rows;
    }
    return (\@rows, undef, $r->{body});
}

sub _stream_missing ($t, $stream, $conn) {
    if (defined $conn) {
        my ($rows) = _fetch_stream_rows($t, $stream, undef);
        if ($rows && @$rows) {
            my @c = map { @{ $_->{connections} } } @$rows;
            my @cands = map { my $row = $_; map { { %$_, connector_key => $row->{connector_key} } } @{ $row->{connections} } } @$rows;
            return $t->not_granted_conn_error('schema', $stream, $conn, \@cands);
        }
    }
    return $t->error_result({ type => 'invalid_request_error', code => 'stream_not_found', param => 'stream',
        message => "No granted stream named '$stream'" . (defined $conn ? " under connection_id $conn" : '') . '.' },
        'Call schema {} for the index of granted stream names (names are case-sensitive).');
}

sub _type_label ($f) {
    my $t = $f->{type} // $f->{json_type} // 'type not advertised';
    $t .= " ($f->{format})" if defined $f->{format} && $t !~ /time|date/;
    return $t;
}

sub _field_summary ($f) {
    my %s;
    $s{type}    = $f->{type} // $f->{json_type} if defined($f->{type} // $f->{json_type});
    $s{format}  = $f->{format} if defined $f->{format};
    $s{role}    = $f->{role} if defined $f->{role};
    $s{granted} = $f->{granted} ? JSON::PP::true : JSON::PP::false;
    my @ops = (($f->{eq} ? ('eq') : ()), @{ $f->{range} });
    $s{filter}    = \@ops if @ops;
    my @se = (($f->{lex} ? 'lexical' : ()), ($f->{sem} ? 'semantic' : ()));
    $s{search}    = \@se if @se;
    $s{aggregate} = [ @{ $f->{agg} } ] if @{ $f->{agg} };
    $s{unusable}  = $f->{unusable} if %{ $f->{unusable} };
    return \%s;
}

sub _example_value ($f) {
    my $t = $f->{type} // $f->{json_type} // 'string';
    return '2026-01-01T00:00:00Z' if $t =~ /time|date/ || ($f->{format} // '') =~ /date/;
    return 0 if $t =~ /integer|number/;
    return JSON::PP::true if $t =~ /bool/;
    return '<value>';
}

# Model-visible capability summary of one stream row.  Returns (lines, struct).
sub row_summary ($row, %o) {
    my $name = $row->{name};
    my @L;
    my @conns = @{ $row->{connections} };
    push @L, "## $name — connector " . ($row->{connector_key} // '?') . (defined $row->{connector_name} ? ' "' . $row->{connector_name} . '"' : '');
    if (@conns) {
        my @shown = @conns > SCOPED_CONN_LIST ? @conns[ 0 .. SCOPED_CONN_LIST - 1 ] : @conns;
        push @L, 'connection' . (@conns == 1 ? '' : 's') . ': ' . join(', ', map { _conn_label($_) } @shown)
          . (@conns > @shown ? ', +' . (@conns - @shown) . ' more' : '')
          . (@conns > 1 ? ' → pass one as connection_id for query_records, fetch and read_record_field (aggregate may merge them)' : '');
    }
    my @meta;
    push @meta, "records: $row->{record_count}" if defined $row->{record_count} && !ref $row->{record_count};
    push @meta, 'primary key: ' . join(',', @{ $row->{primary_key} }) if @{ $row->{primary_key} };
    if (defined $row->{cursor_field}) {
        push @meta, "sort: by $row->{cursor_field} only (\"sort\":\"-$row->{cursor_field}\" descending = default, \"sort\":\"$row->{cursor_field}\" ascending; or order asc|desc)";
    } else {
        push @meta, 'sort: default order only (order asc|desc)';
    }
    push @L, join(' · ', @meta);
    push @L, 'count: yes — query_records {"count":true} returns the exact total · projection: yes — "fields":[...] on query_records/fetch narrows records to the named fields';
    my @search;
    push @search, 'lexical on ' . join(', ', @{ $row->{lexical_fields} }) if @{ $row->{lexical_fields} };
    push @search, 'semantic on ' . join(', ', @{ $row->{semantic_fields} }) if @{ $row->{semantic_fields} };
    push @L, 'search: ' . (@search ? join(' · ', @search) . " (search {\"q\":\"...\",\"streams\":[\"$name\"]}; semantic via \"mode\":\"semantic\")" : 'no searchable fields advertised');
    my @ex = @{ $row->{expand} };
    if (@ex) {
        push @L, 'expand: ' . join('; ', map {
            my $e = $_;
            my @p;
            push @p, $e->{cardinality} if defined $e->{cardinality};
            push @p, "default $e->{default_limit}" if defined $e->{default_limit};
            push @p, "max $e->{max_limit}" if defined $e->{max_limit};
            push @p, 'not usable: ' . ($e->{reason} // 'unknown') unless $e->{usable};
            "$e->{name} → stream " . ($e->{target_stream} // '?') . (@p ? ' (' . join(', ', @p) . ')' : '');
        } @ex) . ' (query_records/fetch "expand":["<name>"], "expand_limit":{"<name>":N})';
    } else {
        push @L, 'expand: none (expand is rejected on this stream)';
    }
    my $ag = $row->{agg_ops};
    my @agg;
    if (defined $row->{agg_count}) { push @agg, 'metric count: ' . ($row->{agg_count} ? 'yes' : 'no') }
    elsif (%$ag)                     { push @agg, 'metric count: not stated (try it)' }
    for my $op (qw(sum min max count_distinct group_by group_by_time)) {
        push @agg, "$op: " . join(', ', @{ $ag->{$op} }) if $ag->{$op} && @{ $ag->{$op} };
    }
    push @L, 'aggregate: ' . (@agg ? join(' · ', @agg) : 'no aggregations advertised');

    my @fl;
    for my $fname (@{ $row->{field_order} }) {
        my $f = $row->{fields}{$fname};
        my @p = (_type_label($f));
        push @p, "role=$f->{role}" if defined $f->{role};
        push @p, 'NOT GRANTED' unless $f->{granted};
        my @ops = (($f->{eq} ? ('eq') : ()), @{ $f->{range} });
        push @p, 'filter=' . join(',', @ops) if @ops;
        my @se = (($f->{lex} ? 'lex' : ()), ($f->{sem} ? 'sem' : ()));
        push @p, 'search=' . join(',', @se) if @se;
        push @p, 'agg=' . join(',', @{ $f->{agg} }) if @{ $f->{agg} };
        push @p, 'unusable=' . join(',', map { "$_:$f->{unusable}{$_}" } sort keys %{ $f->{unusable} }) if %{ $f->{unusable} };
        push @fl, "  $fname: " . join('; ', @p);
    }
    if (@fl) {
        push @L, 'fields (' . scalar(@fl) . '):', @fl;
    } else {
        push @L, 'fields: none advertised';
    }
    if (!$row->{caps_advertised} && @fl) {
        push @L, 'note: the resource server advertises no filter/search/aggregate flags for these fields; try reads without filters.';
    }

    # Examples built from this row's capabilities.
    my @conn_arg = @conns == 1 ? (connection_id => $conns[0]{connection_id})
                 : @conns > 1 ? (connection_id => $conns[0]{connection_id}) : ();
    my @F = @{ $row->{field_order} };
    my $fields = $row->{fields};
    my @proj = grep { defined } ($row->{title_field}, $row->{cursor_field});
    for my $fn (@F) { last if @proj >= 3; push @proj, $fn unless grep { $_ eq $fn } @proj }
    @proj = grep { $fields->{$_} && $fields->{$_}{granted} } @proj;
    my %ex = (stream => $name, @conn_arg, limit => 10);
    $ex{fields} = \@proj if @proj;
    my ($rangef) = grep { @{ $fields->{$_}{range} } } @F;
    my ($eqf)    = grep { $fields->{$_}{eq} && ($fields->{$_}{type} // $fields->{$_}{json_type} // '') !~ /time|date/ } @F;
    if ($rangef) { $ex{filter} = { $rangef => { $fields->{$rangef}{range}[0] => _example_value($fields->{$rangef}) } } }
    elsif ($eqf) { $ex{filter} = { $eqf => _example_value($fields->{$eqf}) } }
    $ex{sort} = "-$row->{cursor_field}" if defined $row->{cursor_field};
    my @examples = (call_text('query_records', \%ex));
    if ($ag->{group_by} && @{ $ag->{group_by} }) {
        push @examples, call_text('aggregate', { stream => $name, @conn_arg, metric => 'count', group_by => $ag->{group_by}[0] });
    }
    if ($ag->{group_by_time} && @{ $ag->{group_by_time} }) {
        push @examples, call_text('aggregate', { stream => $name, @conn_arg, metric => 'count', group_by_time => $ag->{group_by_time}[0], granularity => 'month' });
    }
    for my $op (qw(sum max min count_distinct)) {
        if ($ag->{$op} && @{ $ag->{$op} }) {
            push @examples, call_text('aggregate', { stream => $name, @conn_arg, metric => $op, field => $ag->{$op}[0] });
            last;
        }
    }
    push @L, 'examples' . (@conns > 1 ? ' (connection_id shown is the first of several; pick the one you need)' : '') . ':';
    push @L, map { "  $_" } @examples;

    my %st = (
        stream         => $name,
        connector_key  => $row->{connector_key},
        (defined $row->{connector_name} ? (connector_display_name => $row->{connector_name}) : ()),
        connections    => [ map { { %$_ } } @conns ],
        (defined $row->{record_count} ? (record_count => $row->{record_count}) : ()),
        primary_key    => $row->{primary_key},
        sort           => { fields => [ grep { defined } $row->{cursor_field} ], default_order => 'desc', orders => [ 'asc', 'desc' ] },
        count          => JSON::PP::true,
        projection     => JSON::PP::true,
        search         => { lexical => $row->{lexical_fields}, semantic => $row->{semantic_fields} },
        expand         => [ map { my $e = $_; +{ map { defined $e->{$_} ? ($_ => $e->{$_}) : () } qw(name target_stream cardinality default_limit max_limit reason) }, } @ex ],
        aggregations   => { (defined $row->{agg_count} ? (count => ($row->{agg_count} ? JSON::PP::true : JSON::PP::false)) : ()), map { $_ => $ag->{$_} } grep { @{ $ag->{$_} } } keys %$ag },
        fields         => { map { $_ => _field_summary($fields->{$_}) } @F },
        examples       => \@examples,
    );
    for my $i (0 .. $#ex) { $st{expand}[$i]{usable} = $ex[$i]{usable} ? JSON::PP::true : JSON::PP::false }
    return (\@L, \%st);
}

# Short summary used when a stream name has many source rows.
sub compact_row_summary ($row) {
    my @conns = map { $_->{connection_id} } @{ $row->{connections} };
    my @L = ('## ' . $row->{name} . ' — connector ' . ($row->{connector_key} // '?') . ' — connection' . (@conns == 1 ? '' : 's') . ': ' . join(', ', @conns)
             . ' (compact; add connection_id for the full summary)');
    push @L, 'fields: ' . join(', ', map { my $f = $row->{fields}{$_}; my @o = (($f->{eq} ? 'eq' : ()), @{ $f->{range} }); $_ . (@o ? '[' . join('|', @o) . ']' : '') } @{ $row->{field_order} });
    my $ag = $row->{agg_ops};
    my @agg = map { "$_: " . join(',', @{ $ag->{$_} }) } grep { $ag->{$_} && @{ $ag->{$_} } } qw(sum min max count_distinct group_by group_by_time);
    push @L, 'aggregate: ' . (@agg ? join(' · ', @agg) : 'no field aggregations advertised');
    push @L, 'search: ' . join(' · ', (@{ $row->{lexical_fields} } ? 'lexical on ' . join(',', @{ $row->{lexical_fields} }) : ()), (@{ $row->{semantic_fields} } ? 'semantic on ' . join(',', @{ $row->{semantic_fields} }) : ())) if @{ $row->{lexical_fields} } || @{ $row->{semantic_fields} };
    return { lines => \@L, struct => { stream => $row->{name}, connector_key => $row->{connector_key}, connections => $row->{connections},
        compact => JSON::PP::true, fields => $row->{field_order}, aggregations => { map { $_ => $ag->{$_} } grep { @{ $ag->{$_} } } keys %$ag } } };
}

sub legend () {
    return 'Legend: filter=eq → {"filter":{"<field>":<value>}}; filter=gte|gt|lte|lt → {"filter":{"<field>":{"gte":<value>,"lt":<value>}}} (filters combine with AND); '
      . 'search=lex|sem → matched by search mode lexical|semantic; '
      . 'agg=sum|min|max|count_distinct → aggregate {"metric":"<op>","field":"<field>"}; agg=group_by → aggregate {"metric":"count","group_by":"<field>"}; agg=group_by_time → aggregate {"metric":"count","group_by_time":"<field>","granularity":"day|week|month|..."}; '
      . 'role=… is the manifest display role (primary-title = title, primary-text = main body); NOT GRANTED fields cannot be read; timestamps are ISO-8601 strings.';
}

sub _scoped ($t, $v) {
    my ($stream, $conn) = @{$v}{qw(stream connection_id)};
    my ($rows, $err) = _fetch_stream_rows($t, $stream, $conn);
    return $t->rs_error_result($err, stream => $stream) if $err;
    my $gate = $t->ensure_client_token;
    return $gate if $gate;
    return _stream_missing($t, $stream, $conn) unless @$rows;

    my @lines;
    my $nconn = 0;
    $nconn += @{ $_->{connections} } for @$rows;
    push @lines, "Stream '$stream': " . scalar(@$rows) . ' source row' . (@$rows == 1 ? '' : 's') . ", $nconn granted connection" . ($nconn == 1 ? '' : 's') . (defined $conn ? " (narrowed to connection_id $conn)" : '') . '.';
    if (@$rows > 1) {
        push @lines, 'Several connectors publish this stream name with different fields; choose the connection_id of the row you need.';
    }
    my @st;
    my $used = 0;
    for my $row (@$rows) {
        my ($L, $s) = row_summary($row);
        my $len = 0;
        $len += length($_) + 1 for @$L;
        if ($used + $len > SCOPED_TEXT_BUDGET && @st) {
            # Keep every row visible with a compact field/aggregation summary.
            my $c = compact_row_summary($row);
            push @lines, '', @{ $c->{lines} };
            push @st, $c->{struct};
            next;
        }
        $used += $len;
        push @lines, '', @$L;
        push @st, $s;
    }
    push @lines, '', legend();
    my $sc = { data => { object => 'stream_capabilities', stream => $stream, (defined $conn ? (connection_id => $conn) : ()),
                         rows => \@st, legend => legend() } };
    return { content => [ { type => 'text', text => join("\n", @lines) } ], structuredContent => $sc };
}

# ---------------------------------------------------------------------------
sub _strip_false_caps ($doc) {
    for my $c (@{ is_array($doc->{connectors}) ? $doc->{connectors} : [] }) {
        for my $s (@{ is_array($c->{streams}) ? $c->{streams} : [] }) {
            my $fc = $s->{field_capabilities};
            next unless is_hash($fc);
            for my $f (values %$fc) {
                next unless is_hash($f);
                for my $k (qw(exact_filter range_filter lexical_search semantic_search)) {
                    delete $f->{$k} if is_hash($f->{$k}) && !is_true($f->{$k}{declared}) && !is_true($f->{$k}{usable});
                }
                if (is_hash($f->{aggregation})) {
                    for my $op (keys %{ $f->{aggregation} }) {
                        my $a = $f->{aggregation}{$op};
                        delete $f->{aggregation}{$op} if is_hash($a) && !is_true($a->{declared}) && !is_true($a->{usable});
                    }
                    delete $f->{aggregation} unless %{ $f->{aggregation} };
                }
            }
        }
    }
}

sub _full ($t, $v) {
    my ($stream, $conn) = @{$v}{qw(stream connection_id)};
    my $res = $t->resolve_stream($stream);
    my @rows_for_err = $res->{ok} ? @{ $res->{rows} } : ();
    if ($res->{ok}) {
        my $cands = $res->{candidates};
        return _stream_missing($t, $stream, $conn) unless @$cands;
        if (!defined $conn) {
            if (@$cands > 1) {
                return $t->ambiguous_error('schema', $stream, $cands, { stream => $stream, detail => 'full' });
            }
            $conn = $cands->[0]{connection_id};
        } elsif (!grep { $_->{connection_id} eq $conn } @$cands) {
            return $t->not_granted_conn_error('schema', $stream, $conn, $cands);
        }
    }
    my @q = ([ detail => 'full' ], [ stream => $stream ]);
    push @q, [ connection_id => $conn ] if defined $conn;
    my $r = $t->rs->get(['schema'], \@q);
    return $t->rs_error_result($r->{error}, stream => $stream, rows => \@rows_for_err) unless $r->{ok};
    $t->note_bearer($r->{body});
    my $gate = $t->ensure_client_token;
    return $gate if $gate;

    my %doc = %{ $r->{body} };
    delete $doc{links};
    my $warnings = is_hash($doc{meta}) && is_array($doc{meta}{warnings}) ? $doc{meta}{warnings} : [];
    delete $doc{meta};
    $doc{warnings} = $warnings if @$warnings;
    # Keep only the selected stream rows, once (connector-nested).
    my @conns_out;
    if (is_array($doc{connectors})) {
        for my $c (@{ $doc{connectors} }) {
            next unless is_hash($c);
            my %c2 = %$c;
            my @s = grep { is_hash($_) && ($_->{name} // '') eq $stream } @{ is_array($c->{streams}) ? $c->{streams} : [] };
            if (defined $conn) {
                @s = grep { my $row = normalize_row({ connector => $c, stream => $_ }); grep { $_->{connection_id} eq $conn } @{ $row->{connections} } } @s;
            }
            next unless @s;
            $c2{streams} = \@s;
            $c2{stream_count} = scalar @s;
            push @conns_out, \%c2;
        }
        $doc{connectors} = \@conns_out;
        delete $doc{streams} if exists $doc{streams};    # never duplicate the selected rows
        $doc{connector_count} = scalar @conns_out;
        $doc{stream_count} = 0;
        $doc{stream_count} += scalar @{ $_->{streams} } for @conns_out;
    }
    my $doc = \%doc;
    my $size = jsize($doc);
    if ($size > FULL_BUDGET) {
        _strip_false_caps($doc);
        $doc->{adapter_note} = 'Capability entries that are neither declared nor usable were removed to keep this result bounded; absent means false.';
        $size = jsize($doc);
    }
    if ($size > FULL_BUDGET) {
        for my $c (@{ $doc->{connectors} // [] }) {
            for my $s (@{ $c->{streams} // [] }) {
                delete $s->{field_capabilities};
            }
        }
        $doc->{adapter_note} = 'field_capabilities were removed because the exhaustive document exceeded the result budget; use schema with the stream (compact) for per-field capabilities. The raw JSON Schema is kept.';
    }

    my @rows = map { normalize_row($_) } grep { $_->{stream}{name} eq $stream } @{ schema_rows($doc) };
    if (defined $conn) { $_->{connections} = [ grep { $_->{connection_id} eq $conn } @{ $_->{connections} } ] for @rows }
    my @lines = ("Exhaustive schema for stream '$stream'" . (defined $conn ? " (connection_id $conn)" : '') . '. The complete document is in structuredContent.data; summary and raw JSON Schema follow.');
    for my $row (@rows) {
        my ($L) = row_summary($row);
        push @lines, '', @$L;
        my $props = is_hash($row->{raw}{schema}) ? $row->{raw}{schema} : undef;
        if ($props) {
            my ($txt, $cut) = clip_chars(jcompact($props), RAW_TEXT_MAX);
            push @lines, 'raw JSON Schema: ' . $txt . ($cut ? "\x{2026} [cut at " . RAW_TEXT_MAX . ' chars in text; full value in structuredContent.data]' : '');
        }
    }
    push @lines, '', legend();
    return { content => [ { type => 'text', text => join("\n", @lines) } ], structuredContent => { data => $doc } };
}

1;
