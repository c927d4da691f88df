package PdppMcpV::T::Search;
# search and aggregate.
use v5.36;
use utf8;
use JSON::PP ();
use PdppMcpV::Util qw(jcompact jsize is_hash is_array is_true clip_chars balanced_mark_preview strip_marks first_mark_text uri_escape);
use PdppMcpV::Handle qw(make_handle);
use PdppMcpV::Render qw(call_text);

use constant {
    STRUCT_BUDGET  => 60_000,
    PREVIEW_CHARS  => 360,
    MAX_EVIDENCE   => 2,
    TEXT_BUDGET    => 20000,
};

sub _connector_key ($hit) {
    my $k = $hit->{connector_key};
    return "$k" if defined $k && !ref $k && length $k;
    if (is_hash($hit->{source})) {
        my $s = $hit->{source};
        return "$s->{connector_key}" if defined $s->{connector_key};
    }
    my $id = $hit->{connector_id};
    return undef unless defined $id && !ref $id && length $id;
    if ($id =~ m{^[a-z][a-z0-9+.-]*://}i) {
        (my $p = $id) =~ s{[?#].*$}{};
        $p =~ s{/+$}{};
        my ($last) = $p =~ m{/([^/]+)$};
        return $last // $id;
    }
    return "$id";
}

# ---------------------------------------------------------------------------
# search
# ---------------------------------------------------------------------------
sub search ($t, $args) {
    my $v = $t->validate('search', $args, [
        [ q             => 'string', required => 1, max_len => 2000 ],
        [ streams       => 'strings', max_items => 100 ],
        [ connection_id => 'string' ],
        [ mode          => 'string', enum => [qw(lexical semantic hybrid)] ],
        [ limit         => 'int', min => 1, max => PdppMcpV::Tools::MAX_LIMIT(), clamp => 1 ],
        [ cursor        => 'string', max_len => 8192 ],
        [ filter        => 'object' ],
    ]);
    my $mode  = $v->{mode} // 'lexical';
    my $limit = $v->{limit} // PdppMcpV::Tools::DEFAULT_LIMIT();
    if ($mode eq 'hybrid' && defined $v->{cursor}) {
        PdppMcpV::Tools::arg_error('cursor', 'Hybrid search has no cursor paging; raise limit (max 100) or use mode lexical/semantic to page.');
    }
    my $fpairs = [];
    if ($v->{filter}) {
        PdppMcpV::Tools::arg_error('filter', 'filter needs exactly one stream in streams (fields differ between streams).')
          unless $v->{streams} && @{ $v->{streams} } == 1;
        $fpairs = $t->filter_pairs($v->{filter});
    }
    my @path = $mode eq 'lexical' ? ('search') : ('search', $mode);
    my @p = ([ q => $v->{q} ], [ limit => $limit ]);
    push @p, [ cursor => $v->{cursor} ] if defined $v->{cursor};
    push @p, [ streams => $_ ] for @{ $v->{streams} // [] };
    push @p, [ connection_id => $v->{connection_id} ] if defined $v->{connection_id};
    push @p, @$fpairs;
    my $r = $t->rs->get(\@path, \@p);
    if (!$r->{ok}) {
        my $e = $r->{error};
        my $c = $e->{code} // '';
        if ($mode ne 'lexical' && ($e->{http_status} // 0) == 404 && ($c eq 'http_404' || $c =~ /[A-Z\s]/ || $c eq 'route_not_found')) {
            return $t->error_result({ type => 'invalid_request_error', code => 'search_mode_unavailable', param => 'mode',
                message => "The resource server does not offer $mode search." },
                'Retry with mode "lexical" (the default).');
        }
        return $t->rs_error_result($e, stream => ($v->{streams} && @{ $v->{streams} } == 1 ? $v->{streams}[0] : undef), connection_id => $v->{connection_id});
    }
    my ($text, $sc);
    for my $tier ([ PREVIEW_CHARS, 1e9 ], [ 200, 1e9 ], [ 160, 30 ], [ 120, 10 ]) {
        ($text, $sc) = _render($t, $v, $r->{body}, $mode, $limit, @$tier);
        last if jsize($sc) <= STRUCT_BUDGET;
    }
    return { content => [ { type => 'text', text => $text } ], structuredContent => $sc };
}

sub _render ($t, $v, $body, $mode, $limit, $preview_chars, $preview_hits) {
    my @hits = is_array($body->{data}) ? grep { is_hash($_) } @{ $body->{data} } : ();
    my $cut_by_adapter = 0;
    if (@hits > $limit) { @hits = @hits[ 0 .. $limit - 1 ]; $cut_by_adapter = 1 }
    my $rs = $t->rs;

    my (@results, %mix, @mix_order, @blocks);
    my $omitted_any = 0;
    my $i = 0;
    for my $h (@hits) {
        $i++;
        my $cid = $h->{connection_id} // $h->{connector_instance_id} // (is_hash($h->{source}) ? $h->{source}{connection_id} : undef);
        my $stream = $h->{stream};
        my $rid = $h->{record_key} // $h->{record_id} // $h->{id};
        next unless defined $stream && defined $rid;
        my $ck = _connector_key($h);
        my $handle = make_handle($cid, $stream, $rid);
        my $label = $h->{display_name} // (is_hash($h->{source}) ? $h->{source}{display_name} : undef);
        my $ts = $h->{authored_at} // $h->{emitted_at};
        my $title = ($label // $cid // $ck // 'record') . " · $stream $rid" . (defined $ts ? " · $ts" : '');
        my $url = $rs->absolute('/v1/streams/' . uri_escape($stream) . '/records/' . uri_escape($rid))
          . (defined $cid ? '?connection_id=' . uri_escape($cid) : '');
        my %res = (id => $handle, title => $title, url => $url, stream => $stream, record_id => "$rid");
        $res{connection_id} = $cid if defined $cid;
        $res{connector_key} = $ck if defined $ck;
        $res{display_name}  = $label if defined $label;
        $res{matched_fields} = $h->{matched_fields} if is_array($h->{matched_fields});
        $res{authored_at} = $h->{authored_at} if defined $h->{authored_at};
        $res{emitted_at}  = $h->{emitted_at} if defined $h->{emitted_at};
        $res{score}  = $h->{score}  if is_hash($h->{score});
        $res{scores} = $h->{scores} if is_hash($h->{scores});
        $res{retrieval_mode} = $h->{retrieval_mode} if defined $h->{retrieval_mode};

        # Evidence: only proven text matches (lexical excerpts / highlighted snippets).
        my @ev;
        my @cands;
        if (is_array($h->{evidence_excerpts})) {
            for my $x (@{ $h->{evidence_excerpts} }) {
                next unless is_hash($x) && defined $x->{preview_text};
                push @cands, { field => $x->{field_path} // (is_hash($x->{read}) ? $x->{read}{field} : undef), text => $x->{preview_text},
                               provenance => $x->{provenance}, read => $x->{read}, truncated => $x->{truncated} };
            }
        }
        if (!@cands && is_hash($h->{snippet}) && defined $h->{snippet}{text}) {
            push @cands, { field => $h->{snippet}{field}, text => $h->{snippet}{text} };
        } elsif (!@cands && defined $h->{snippet} && !ref $h->{snippet}) {
            push @cands, { field => (is_array($h->{matched_fields}) ? $h->{matched_fields}[0] : undef), text => $h->{snippet} };
        }
        my $ev_omitted = 0;
        for my $c (@cands) {
            last if @ev >= MAX_EVIDENCE;
            if ($i > $preview_hits) { $ev_omitted = 1; last }
            my $proven = ($c->{text} =~ /<mark>/i) || (($c->{provenance} // '') eq 'lexical_match');
            next unless $proven && defined $c->{field} && !ref $c->{field};
            my ($pv, $clipped) = balanced_mark_preview($c->{text}, $preview_chars);
            $pv =~ s/\s+/ /g;
            my $mt;
            for my $m ($pv =~ /<mark>(.*?)<\/mark>/g) { $mt = $m if !defined $mt || length($m) > length($mt) }
            my %read = (id => $handle, field => $c->{field});
            if (defined $mt && length($mt) && length($mt) <= 200) { $read{q} = $mt; $read{before_chars} = 300; $read{after_chars} = 1200 }
            my $tr = $clipped || !defined($c->{truncated}) || is_true($c->{truncated});
            push @ev, { field => $c->{field}, preview => $pv, truncated => ($tr ? JSON::PP::true : JSON::PP::false),
                        read_record_field => \%read };
        }
        $res{evidence} = \@ev;
        if ($ev_omitted) {
            my ($c) = grep { defined $_->{field} && !ref $_->{field} } @cands;
            my %read = (id => $handle, field => $c ? $c->{field} : undef);
            delete $read{field} unless defined $read{field};
            my $mt;
            if ($c) { my $x = first_mark_text($c->{text}); $mt = $x if defined $x && length($x) && length($x) <= 200 }
            if (defined $mt && defined $read{field}) { $read{q} = $mt; $read{before_chars} = 300; $read{after_chars} = 1200 }
            $res{evidence_omitted} = { (defined $read{field} ? (read_record_field => \%read) : ()) };
            $omitted_any = 1;
        }
        my $mf = is_array($h->{matched_fields}) && @{ $h->{matched_fields} } ? $h->{matched_fields}[0] : undef;
        if (!@ev && !$ev_omitted) {
            $res{inspect} = { fetch => { id => $handle }, (defined $mf ? (read_record_field => { id => $handle, field => $mf }) : ()) };
        }
        push @results, \%res;

        my $mk = $cid // '(unknown connection)';
        if (!$mix{$mk}) { push @mix_order, $mk; $mix{$mk} = { connection_id => $cid, connector_key => $ck, display_name => $label, hits => 0 } }
        $mix{$mk}{hits}++;

        my @L = ("[$i] $title");
        push @L, '    id ' . jcompact($handle) . ' · connection ' . ($cid // '?') . ' · connector ' . ($ck // '?') . " · stream $stream · record $rid"
          . (is_array($h->{matched_fields}) && @{ $h->{matched_fields} } ? ' · matched: ' . join(',', @{ $h->{matched_fields} }) : '');
        if ($ev_omitted) {
            push @L, '    (evidence preview omitted to keep this result bounded) read: '
              . ($res{evidence_omitted}{read_record_field} ? call_text('read_record_field', $res{evidence_omitted}{read_record_field}) : call_text('fetch', { id => $handle }));
        } elsif (@ev) {
            for my $e (@ev) {
                push @L, "    evidence ($e->{field}): " . jcompact($e->{preview});
                push @L, '    read more: ' . call_text('read_record_field', $e->{read_record_field});
            }
        } else {
            my $why = ($h->{retrieval_mode} // $mode) eq 'lexical' ? 'no proven text window for this hit' : 'matched by ' . ($h->{retrieval_mode} // $mode) . ' similarity, no proven text window';
            push @L, "    ($why) inspect: " . call_text('fetch', { id => $handle })
              . (defined $mf ? ' or ' . call_text('read_record_field', { id => $handle, field => $mf }) : '');
        }
        push @blocks, join("\n", @L);
    }

    my $meta = is_hash($body->{meta}) ? $body->{meta} : {};
    my %sc = (object => 'search_results', query => $v->{q}, mode => $mode, limit => $limit, returned => scalar(@results), results => \@results);
    $sc{streams} = $v->{streams} if $v->{streams};
    $sc{connection_id} = $v->{connection_id} if defined $v->{connection_id};
    $sc{has_more} = (is_true($body->{has_more}) || $cut_by_adapter) ? JSON::PP::true : JSON::PP::false;
    my $next_cursor = $cut_by_adapter ? undef : $body->{next_cursor};
    $sc{next_cursor} = $next_cursor if defined $next_cursor;
    if (defined $meta->{count} && !ref $meta->{count}) {
        $sc{count} = $meta->{count};
        $sc{count_accuracy} = $meta->{count_accuracy} if defined $meta->{count_accuracy};
    } elsif (is_hash($meta->{count}) && ($meta->{count}{kind} // 'none') ne 'none') {
        $sc{count} = $meta->{count}{value};
        $sc{count_accuracy} = $meta->{count}{kind};
    }
    $sc{recall} = $meta->{recall} if is_hash($meta->{recall});
    $sc{evidence_note} = 'Some hits have evidence_omitted: a proven text match exists but its preview was left out to keep this result bounded; read it with the read_record_field arguments given.' if $omitted_any;
    my @warn = (@{ $v->{__warnings} // [] }, (is_array($meta->{warnings}) ? grep { is_hash($_) } @{ $meta->{warnings} } : ()));
    $sc{warnings} = \@warn if @warn;
    my @mix = map { my %m = %{ $mix{$_} }; delete $m{$_} for grep { !defined $m{$_} } keys %m; \%m } @mix_order;
    $sc{source_mix} = \@mix if @mix;
    if (defined $next_cursor) {
        my %n = (q => $v->{q}, limit => $limit, cursor => $next_cursor);
        $n{mode} = $mode if $mode ne 'lexical';
        for my $k (qw(streams connection_id filter)) { $n{$k} = $v->{$k} if defined $v->{$k} }
        $sc{next_page} = { tool => 'search', arguments => \%n };
    }

    my @out;
    my $hdr = "search " . jcompact($v->{q}) . " ($mode) · " . scalar(@results) . ' hit' . (@results == 1 ? '' : 's') . " (limit $limit, "
      . (defined $v->{connection_id} ? "connection $v->{connection_id} only" : 'merged across all granted connections')
      . ($v->{streams} ? '; streams ' . join(',', @{ $v->{streams} }) : '') . ')';
    $hdr .= " · total matches: $sc{count}" . (defined $sc{count_accuracy} ? " ($sc{count_accuracy})" : '') if defined $sc{count};
    $hdr .= ' · has_more: ' . ($sc{has_more} ? 'true' : 'false');
    push @out, $hdr;
    if (@mix > 1) {
        my @mx = @mix > 12 ? @mix[ 0 .. 11 ] : @mix;
        push @out, 'Source mix (' . scalar(@mix) . ' connections): ' . join(' · ', map {
            ($_->{connection_id} // '?') . ' (' . join(' ', grep { defined } ($_->{connector_key}, (defined $_->{display_name} ? '"' . $_->{display_name} . '"' : undef))) . ") $_->{hits}"
        } @mx) . (@mix > @mx ? ' · +' . (@mix - @mx) . ' more connections (each hit below names its own)' : '');
    }
    my $used = length $hdr;
    my $shown = 0;
    for my $bk (@blocks) {
        last if $used + length($bk) > TEXT_BUDGET;
        push @out, $bk;
        $used += length($bk) + 1;
        $shown++;
    }
    if ($shown < @blocks) {
        push @out, '(remaining hits listed by id only to keep text bounded)';
        for my $j ($shown .. $#results) { push @out, '[' . ($j + 1) . '] ' . jcompact($results[$j]{id}) . ' · ' . $results[$j]{title} }
    }
    push @out, 'No matches.' unless @results;
    if (defined $next_cursor) {
        push @out, 'next_cursor: ' . jcompact($next_cursor);
        push @out, 'Next page: ' . call_text('search', $sc{next_page}{arguments});
    } elsif ($cut_by_adapter) {
        push @out, 'More hits exist than limit; narrow with streams or connection_id, or raise limit.';
    } elsif ($sc{has_more}) {
        push @out, 'More hits exist but this mode has no cursor; raise limit (max 100) or narrow the query.';
    }
    push @out, 'warning ' . ($_->{code} // '?') . ': ' . ($_->{message} // '') for @warn;
    push @out, 'Open a hit with fetch {"id":...}; continue a cut evidence window with the read_record_field call shown.' if @results;
    return (join("\n", @out), \%sc);
}

# ---------------------------------------------------------------------------
# aggregate
# ---------------------------------------------------------------------------
sub aggregate ($t, $args) {
    my $v = $t->validate('aggregate', $args, [
        [ stream        => 'string', required => 1 ],
        [ connection_id => 'string' ],
        [ metric        => 'string', required => 1, enum => [qw(count sum min max count_distinct)] ],
        [ field         => 'string' ],
        [ group_by      => 'string' ],
        [ group_by_time => 'string' ],
        [ granularity   => 'string', enum => [qw(minute hour day week month quarter year)] ],
        [ time_zone     => 'string', max_len => 100 ],
        [ limit         => 'int', min => 1, max => 100 ],
        [ filter        => 'object' ],
    ]);
    my $stream = $v->{stream};
    my $m = $v->{metric};
    PdppMcpV::Tools::arg_error('field', "metric $m needs field.") if $m ne 'count' && !defined $v->{field};
    PdppMcpV::Tools::arg_error('field', 'metric count takes no field; use group_by or group_by_time to split counts.') if $m eq 'count' && defined $v->{field};
    PdppMcpV::Tools::arg_error('group_by_time', 'Use group_by or group_by_time, not both.') if defined $v->{group_by} && defined $v->{group_by_time};
    PdppMcpV::Tools::arg_error('group_by', 'Grouping is only available with metric count.') if $m ne 'count' && (defined $v->{group_by} || defined $v->{group_by_time});
    PdppMcpV::Tools::arg_error('granularity', 'group_by_time needs granularity (minute, hour, day, week, month, quarter or year).') if defined $v->{group_by_time} && !defined $v->{granularity};
    PdppMcpV::Tools::arg_error('granularity', 'granularity only applies with group_by_time.') if defined $v->{granularity} && !defined $v->{group_by_time};
    PdppMcpV::Tools::arg_error('time_zone', 'time_zone only applies with group_by_time.') if defined $v->{time_zone} && !defined $v->{group_by_time};
    PdppMcpV::Tools::arg_error('limit', 'limit only applies to grouped aggregates.') if defined $v->{limit} && !defined $v->{group_by} && !defined $v->{group_by_time};
    my $fpairs = $v->{filter} ? $t->filter_pairs($v->{filter}) : [];

    my $res = $t->resolve_stream($stream);
    my %ex = (stream => $stream, metric => $m);
    $ex{$_} = $v->{$_} for grep { defined $v->{$_} } qw(field group_by group_by_time granularity);
    my $src = $t->pick_source('aggregate', $stream, $v->{connection_id}, $res,
                              allow_fanin => ($m ne 'count_distinct'), example => \%ex);
    return $src->{error} if $src->{error};
    my $conn = $src->{connection_id};
    my @p = ([ metric => $m ]);
    for my $k (qw(field group_by group_by_time granularity time_zone limit)) {
        push @p, [ $k => $v->{$k} ] if defined $v->{$k};
    }
    push @p, [ connection_id => $conn ] if defined $conn;
    push @p, @$fpairs;
    my $r = $t->rs->get([ 'streams', $stream, 'aggregate' ], \@p);
    if (!$r->{ok}) {
        my $er = $t->rs_error_result($r->{error}, stream => $stream, connection_id => $conn, rows => ($res->{ok} ? $res->{rows} : []));
        if (($r->{error}{http_status} // 0) == 400) {
            $er->{content}[0]{text} .= "\nThe aggregate line and agg= flags of " . call_text('schema', { stream => $stream, (defined $conn ? (connection_id => $conn) : ()) }) . ' list the usable metrics, fields and groupings.';
        }
        return $er;
    }
    my $b = $r->{body};

    my %sc = map { $_ => $b->{$_} } grep { exists $b->{$_} } qw(object stream metric field group_by group_by_time granularity time_zone approximate filtered_record_count limit value groups other_count);
    $sc{object} //= 'aggregation';
    $sc{stream} //= $stream;
    $sc{connection_id} = $conn if defined $conn;
    my $row = $src->{row};
    $sc{connector_key} = $row->{connector_key} if $row && defined $row->{connector_key};
    if ($src->{fanin}) {
        $sc{merged_connections} = [ map { { connection_id => $_->{connection_id}, (defined $_->{display_name} ? (display_name => $_->{display_name}) : ()) } } @{ $src->{fanin} } ];
    }
    my @warn = is_hash($b->{meta}) && is_array($b->{meta}{warnings}) ? grep { is_hash($_) } @{ $b->{meta}{warnings} } : ();
    $sc{warnings} = \@warn if @warn;

    my @out;
    my $who;
    if ($src->{fanin}) {
        $who = 'merged across ' . scalar(@{ $src->{fanin} }) . ' connections of connector ' . ($row->{connector_key} // '?') . ': '
          . join(', ', map { $_->{connection_id} . (defined $_->{display_name} ? ' "' . $_->{display_name} . '"' : '') } @{ $src->{fanin} }[ 0 .. (@{ $src->{fanin} } > 12 ? 11 : $#{ $src->{fanin} }) ])
          . (@{ $src->{fanin} } > 12 ? ', …' : '') . ' (pass connection_id for one)';
    } elsif (defined $conn) {
        my ($c) = $row ? grep { $_->{connection_id} eq $conn } @{ $row->{connections} } : ();
        $who = "connection $conn" . ($c && defined $c->{display_name} ? ' "' . $c->{display_name} . '"' : '') . ($row && defined $row->{connector_key} ? " (connector $row->{connector_key})" : '');
    } else {
        $who = 'all granted connections';
    }
    my $what = "$m" . (defined $b->{field} ? "($b->{field})" : defined $v->{field} ? "($v->{field})" : '');
    push @out, "aggregate $what on $stream · $who";
    push @out, "filtered_record_count: $b->{filtered_record_count}" if defined $b->{filtered_record_count};
    push @out, 'approximate: true' if is_true($b->{approximate});
    if (is_array($b->{groups})) {
        my $gb = $b->{group_by} // $v->{group_by};
        my $gt = $b->{group_by_time} // $v->{group_by_time};
        my $desc = defined $gb ? "grouped by $gb" : "bucketed by $gt per " . ($b->{granularity} // $v->{granularity} // '?') . ' (' . ($b->{time_zone} // $v->{time_zone} // 'UTC') . ')';
        push @out, "$desc · " . scalar(@{ $b->{groups} }) . ' group' . (@{ $b->{groups} } == 1 ? '' : 's') . (defined $b->{limit} ? " (limit $b->{limit})" : '') . ':';
        for my $g (@{ $b->{groups} }) {
            next unless is_hash($g);
            my $val = exists $g->{count} ? $g->{count} : $g->{value};
            push @out, '  ' . jcompact($g->{key}) . ': ' . (defined $val ? jcompact($val) : 'null');
        }
        if (defined $b->{other_count}) {
            push @out, "other_count: $b->{other_count} (records in groups beyond the limit)";
        } elsif ($src->{fanin}) {
            push @out, 'other_count: not reported for merged connections';
        }
    } elsif (exists $b->{value}) {
        push @out, 'value: ' . jcompact($b->{value});
    }
    push @out, 'warning ' . ($_->{code} // '?') . ': ' . ($_->{message} // '') for @warn;
    return { content => [ { type => 'text', text => join("\n", @out) } ], structuredContent => \%sc };
}

1;
