package PdppMcpV::T::Records;
# query_records, fetch and read_record_field.
use v5.36;
use utf8;
use JSON::PP ();
use PdppMcpV::Util qw(jcompact jsize is_hash is_array is_bool is_true clip_chars looks_binary approx_bytes_for human_bytes uri_escape);
use PdppMcpV::Handle qw(make_handle parse_handle);
use PdppMcpV::Render qw(bound_data sanitize_nested value_preview call_text blob_descriptor is_blob_ref field_sort);

use constant {
    TEXT_BUDGET        => 22000,    # chars of record blocks in query_records text
    TEXT_PREVIEW       => 240,      # chars per field preview in text
    TEXT_PREVIEW_MAIN  => 600,      # primary-text role field preview in text
    FETCH_TEXT_BUDGET  => 12000,    # chars of document text
    FETCH_MAIN_MAX     => 8000,     # chars of the primary-text field in a document
    FETCH_OTHER_MAX    => 1500,     # chars of any other string field in a document
    FETCH_JSON_MAX     => 2000,     # chars of a nested JSON value in a document
    EXPAND_CHILDREN    => 10,
};

my @CAPS = (2000, 600, 200, 80);
our $STRUCT_BUDGET = 60_000;    # bytes of structuredContent for a records page

# ---------------------------------------------------------------------------
# query_records
# ---------------------------------------------------------------------------
sub query_records ($t, $args) {
    my $v = $t->validate('query_records', $args, [
        [ stream        => 'string', required => 1 ],
        [ connection_id => 'string' ],
        [ fields        => 'strings' ],
        [ filter        => 'object' ],
        [ sort          => 'string', max_len => 200 ],
        [ order         => 'string', enum => [qw(asc desc)] ],
        [ limit         => 'int', min => 1, max => PdppMcpV::Tools::MAX_LIMIT(), clamp => 1 ],
        [ cursor        => 'string', max_len => 8192 ],
        [ count         => 'bool' ],
        [ changes_since => 'string', max_len => 8192 ],
        [ expand        => 'strings' ],
        [ expand_limit  => 'object' ],
    ]);
    my $stream = $v->{stream};
    my $fpairs = $v->{filter} ? $t->filter_pairs($v->{filter}) : [];
    if (defined $v->{changes_since}) {
        for my $k (qw(sort order count expand expand_limit)) {
            next unless defined $v->{$k} && !($k eq 'count' && !$v->{count});
            PdppMcpV::Tools::arg_error($k, "$k cannot be combined with changes_since (the changes feed has its own order and no totals).");
        }
    }
    if (defined $v->{sort}) {
        PdppMcpV::Tools::arg_error('sort', 'sort takes one field name, optionally prefixed with "-" (e.g. "-sent_at").')
          unless $v->{sort} =~ /^[-+]?[^\s,]+$/ || $v->{sort} =~ /^[-+]?[^\s,]+(?:\s*,\s*[-+]?[^\s,]+)*$/;
    }
    my $xpairs = $t->expand_pairs($v);

    my $res = $t->resolve_stream($stream);
    my $example = { stream => $stream, ($v->{fields} ? (fields => $v->{fields}) : ()), limit => $v->{limit} // PdppMcpV::Tools::DEFAULT_LIMIT() };
    my $src = $t->pick_source('query_records', $stream, $v->{connection_id}, $res, example => $example);
    return $src->{error} if $src->{error};
    my $gate = $t->expand_gate('query_records', $stream, $src->{row}, $v);
    return $gate if $gate;
    my $conn = $src->{connection_id};
    my $limit = $v->{limit} // PdppMcpV::Tools::DEFAULT_LIMIT();

    my $build = sub ($lim) {
        my @p = ([ limit => $lim ]);
        push @p, [ cursor => $v->{cursor} ] if defined $v->{cursor};
        push @p, [ order => $v->{order} ] if defined $v->{order};
        push @p, [ sort => $v->{sort} ] if defined $v->{sort};
        push @p, [ count => 'exact' ] if $v->{count};
        push @p, [ fields => $_ ] for @{ $v->{fields} // [] };
        push @p, [ changes_since => $v->{changes_since} ] if defined $v->{changes_since};
        push @p, [ connection_id => $conn ] if defined $conn;
        push @p, @$fpairs, @$xpairs;
        return \@p;
    };
    my $r = $t->rs->get([ 'streams', $stream, 'records' ], $build->($limit));
    return $t->rs_error_result($r->{error}, stream => $stream, connection_id => $conn, rows => ($res->{ok} ? $res->{rows} : [])) unless $r->{ok};

    my $ctx = { t => $t, v => $v, stream => $stream, conn => $conn, row => $src->{row}, limit => $limit };
    my ($text, $sc);
    for my $cap (@CAPS) {
        ($text, $sc) = _render_page($ctx, $r->{body}, $cap);
        last if jsize($sc) <= $STRUCT_BUDGET;
    }
    my $n = is_array($r->{body}{data}) ? scalar @{ $r->{body}{data} } : 0;
    if (jsize($sc) > $STRUCT_BUDGET && $n > 1) {
        # Still too large: re-read the same position with a smaller page so
        # the cursor stays exact.
        my $new = int($n * $STRUCT_BUDGET / (jsize($sc) * 1.15));
        $new = 1 if $new < 1;
        $new = $n - 1 if $new >= $n;
        my $r2 = $t->rs->get([ 'streams', $stream, 'records' ], $build->($new));
        if ($r2->{ok}) {
            $ctx->{limit} = $new;
            $ctx->{reduced_from} = $limit;
            ($text, $sc) = _render_page($ctx, $r2->{body}, $CAPS[-1]);
        }
    }
    return { content => [ { type => 'text', text => $text } ], structuredContent => $sc };
}

sub _expanded_struct ($t, $exp, $conn, $cap) {
    return undef unless is_hash($exp);
    my %out;
    for my $rel (sort keys %$exp) {
        my $x = $exp->{$rel};
        if (!defined $x) { $out{$rel} = undef; next }
        my $one = sub ($rec) {
            return $rec unless is_hash($rec);
            my $cid = $rec->{connection_id} // $conn;
            my %c = (object => 'record', id => $rec->{id}, stream => $rec->{stream});
            $c{fetch_id} = make_handle($cid, $rec->{stream}, $rec->{id}) if defined $rec->{stream} && defined $rec->{id};
            $c{connection_id} = $cid if defined $cid;
            $c{data} = sanitize_nested($rec->{data}, $cap) if exists $rec->{data};
            return \%c;
        };
        if (is_hash($x) && is_array($x->{data})) {
            $out{$rel} = { object => 'list', has_more => $x->{has_more}, data => [ map { $one->($_) } @{ $x->{data} } ] };
        } else {
            $out{$rel} = $one->($x);
        }
    }
    return \%out;
}

sub _render_page ($ctx, $body, $cap) {
    my ($t, $v, $stream, $conn, $row) = @{$ctx}{qw(t v stream conn row)};
    my $rs = $t->rs;
    my @recs = is_array($body->{data}) ? @{ $body->{data} } : ();
    my %want = map { $_ => 1 } @{ $v->{fields} // [] };
    my $title_f = $row ? $row->{title_field} : undef;
    my $text_f  = $row ? $row->{text_field}  : undef;

    my (@srecs, @blocks, @compact);
    my $i = 0;
    for my $rec (@recs) {
        $i++;
        next unless is_hash($rec);
        my $cid = $rec->{connection_id} // $rec->{connector_instance_id} // $conn;
        my $rst = $rec->{stream} // $stream;
        my $rid = $rec->{id};
        my $handle = make_handle($cid, $rst, $rid);
        my %s = (object => 'record', id => $rid, stream => $rst, fetch_id => $handle);
        $s{connection_id} = $cid if defined $cid;
        $s{display_name}  = $rec->{display_name} if defined $rec->{display_name};
        $s{emitted_at}    = $rec->{emitted_at} if defined $rec->{emitted_at};
        my $head = "[$i] $rid · id " . jcompact($handle);
        $head .= " · connection $cid" if defined $cid && (!defined $conn || $cid ne $conn);
        $head .= " · emitted $rec->{emitted_at}" if defined $rec->{emitted_at};
        if (is_true($rec->{deleted})) {
            $s{deleted} = JSON::PP::true;
            $s{deleted_at} = $rec->{deleted_at} if defined $rec->{deleted_at};
            push @srecs, \%s;
            my $l = "[$i] $rid · DELETED" . (defined $rec->{deleted_at} ? " at $rec->{deleted_at}" : '') . " · connection " . ($cid // '?');
            push @blocks, $l;
            push @compact, $l;
            next;
        }
        my $data = is_hash($rec->{data}) ? $rec->{data} : {};
        if (%want) {
            $data = { map { $_ => $data->{$_} } grep { exists $data->{$_} } keys %$data };
            $data = { map { $_ => $data->{$_} } grep { $want{$_} } keys %$data };
        }
        my $b = bound_data($data, cap => $cap, nested_cap => $cap * 2,
                           read_base => { id => $handle }, fetch_base => { id => $handle }, rs => $rs, connection_id => $cid);
        $s{data} = $b->{data};
        $s{truncated_fields} = $b->{truncated} if $b->{truncated};
        $s{binary_fields}    = $b->{binary}    if $b->{binary};
        $s{blobs}            = $b->{blobs}     if $b->{blobs};
        $s{omitted_fields}   = $b->{omitted}   if $b->{omitted};
        if (is_hash($rec->{expanded})) {
            $s{expanded} = _expanded_struct($t, $rec->{expanded}, $cid, int($cap / 2) || 40);
        }
        push @srecs, \%s;

        # text block
        my @L = ($head);
        for my $k (@{ field_sort([ keys %$data ], $title_f, $text_f) }) {
            my $val = $data->{$k};
            if ($b->{binary} && $b->{binary}{$k}) {
                my $d = $b->{binary}{$k};
                push @L, "    $k: [binary-like $d->{encoding} value, $d->{total_chars} chars"
                  . (defined $d->{approx_bytes} ? ' ≈ ' . human_bytes($d->{approx_bytes}) : '')
                  . (defined $d->{media_type} ? ", $d->{media_type}" : '')
                  . '; metadata only; raw window: ' . call_text('read_record_field', { id => $handle, field => $k, allow_binary => JSON::PP::true }) . ']';
                next;
            }
            if ($b->{blobs} && $b->{blobs}{$k}) {
                push @L, "    $k: " . _blob_line($b->{blobs}{$k});
                next;
            }
            if ($b->{omitted} && $b->{omitted}{$k}) {
                push @L, "    $k: [nested value of $b->{omitted}{$k}{json_chars} JSON chars omitted; " . call_text('fetch', { id => $handle, fields => [$k] }) . ']';
                next;
            }
            my $max = (defined $text_f && $k eq $text_f) ? TEXT_PREVIEW_MAIN : TEXT_PREVIEW;
            if (!ref $val && defined $val) {
                my ($pv, $clipped) = value_preview($val, $max);
                if ($clipped) {
                    $pv .= sprintf(" \x{2026}[cut: %d of %d chars shown; continue: %s]", $max, length($val),
                        call_text('read_record_field', { id => $handle, field => $k, offset_chars => $max }));
                }
                push @L, "    $k: $pv";
            } else {
                my ($pv, $clipped) = value_preview(is_hash($b->{data}{$k}) || is_array($b->{data}{$k}) ? $b->{data}{$k} : $val, $max);
                $pv .= ' [JSON cut; full value in structuredContent or ' . call_text('fetch', { id => $handle, fields => [$k] }) . ']' if $clipped;
                push @L, "    $k: $pv";
            }
        }
        if (is_hash($rec->{expanded})) {
            for my $rel (sort keys %{ $rec->{expanded} }) {
                my $x = $s{expanded}{$rel};
                if (is_hash($x) && is_array($x->{data})) {
                    my @ids = map { $_->{fetch_id} // $_->{id} // '?' } @{ $x->{data} };
                    my @sh = @ids > EXPAND_CHILDREN ? @ids[ 0 .. EXPAND_CHILDREN - 1 ] : @ids;
                    push @L, "    expanded $rel: " . scalar(@ids) . ' record' . (@ids == 1 ? '' : 's')
                      . (is_true($x->{has_more}) ? ' (more exist; raise expand_limit or query the related stream)' : '')
                      . (@sh ? ' — ids ' . join(', ', map { jcompact($_) } @sh) . (@ids > @sh ? ', …' : '') : '');
                } elsif (is_hash($x)) {
                    push @L, "    expanded $rel: id " . jcompact($x->{fetch_id} // $x->{id} // '?');
                } else {
                    push @L, "    expanded $rel: none";
                }
            }
        }
        push @blocks, join("\n", @L);
        push @compact, $head;
    }

    # Envelope
    my %sc = (object => 'list', stream => $stream);
    $sc{connection_id} = $conn if defined $conn;
    if ($row) {
        $sc{connector_key} = $row->{connector_key} if defined $row->{connector_key};
        my ($c) = grep { defined $conn && $_->{connection_id} eq $conn } @{ $row->{connections} };
        $sc{display_name} = $c->{display_name} if $c && defined $c->{display_name};
    }
    $sc{returned} = scalar @srecs;
    $sc{limit}    = $ctx->{limit};
    $sc{limit_reduced_from} = $ctx->{reduced_from} if $ctx->{reduced_from};
    $sc{has_more} = is_true($body->{has_more}) ? JSON::PP::true : JSON::PP::false;
    $sc{next_cursor} = $body->{next_cursor} if defined $body->{next_cursor};
    $sc{next_changes_since} = $body->{next_changes_since} if defined $body->{next_changes_since};
    my $meta = is_hash($body->{meta}) ? $body->{meta} : {};
    if (is_hash($meta->{count}) && ($meta->{count}{kind} // 'none') ne 'none') {
        $sc{count} = $meta->{count};
    } elsif (defined $meta->{count} && !ref $meta->{count}) {
        $sc{count} = { kind => 'exact', value => $meta->{count} };
    }
    $sc{window} = $meta->{window} if is_hash($meta->{window});
    my @warn = (@{ $v->{__warnings} // [] }, (is_array($meta->{warnings}) ? @{ $meta->{warnings} } : ()));
    $sc{warnings} = \@warn if @warn;
    $sc{data} = \@srecs;

    my %base = (stream => $stream, (defined $conn ? (connection_id => $conn) : ()));
    for my $k (qw(fields filter sort order count expand expand_limit)) {
        $base{$k} = $v->{$k} if defined $v->{$k} && !($k eq 'count' && !$v->{count});
    }
    $base{count} = JSON::PP::true if $base{count};
    $base{limit} = $ctx->{limit};
    if (defined $sc{next_cursor}) {
        my %n = (%base, cursor => $sc{next_cursor});
        $sc{next_page} = { tool => 'query_records', arguments => \%n };
    }
    if (defined $sc{next_changes_since}) {
        my %n = (%base, changes_since => $sc{next_changes_since});
        delete $n{$_} for qw(sort order count expand expand_limit);
        $sc{resume_changes} = { tool => 'query_records', arguments => \%n };
    }

    # Text
    my @out;
    my $who = defined $conn ? "connection $conn" : 'all connections';
    if ($row && defined $conn) {
        my ($c) = grep { $_->{connection_id} eq $conn } @{ $row->{connections} };
        $who .= ' "' . $c->{display_name} . '"' if $c && defined $c->{display_name};
    }
    $who .= " (connector $row->{connector_key})" if $row && defined $row->{connector_key};
    my $hdr = "query_records $stream · $who · " . scalar(@srecs) . ' record' . (@srecs == 1 ? '' : 's') . " (limit $ctx->{limit})";
    $hdr .= ' · has_more: ' . ($sc{has_more} ? 'true' : 'false');
    if ($sc{count}) {
        $hdr .= " · total: $sc{count}{value} ($sc{count}{kind})";
    }
    $hdr .= ' · changes feed' if defined $v->{changes_since} || (defined $v->{cursor} && defined $sc{next_changes_since});
    push @out, $hdr;
    push @out, "(page size reduced from $ctx->{reduced_from} to $ctx->{limit} to keep this result bounded; the cursor continues exactly after the last record shown)" if $ctx->{reduced_from};
    if (is_hash($sc{window})) {
        push @out, 'window: ' . jcompact($sc{window});
    }
    my $used = length $hdr;
    my $shown = 0;
    for my $j (0 .. $#blocks) {
        if ($used + length($blocks[$j]) > TEXT_BUDGET) { last }
        push @out, $blocks[$j];
        $used += length($blocks[$j]) + 1;
        $shown++;
    }
    if ($shown < @blocks) {
        push @out, "(field previews omitted for the remaining " . (@blocks - $shown) . " records to keep text bounded; their fields are in structuredContent.data, or use fetch/narrower fields)";
        push @out, @compact[ $shown .. $#compact ];
    }
    push @out, ((defined $v->{changes_since} || defined $sc{next_changes_since}) ? 'No changed records in this page.' : 'No records matched.') unless @srecs;
    if (defined $sc{next_cursor}) {
        push @out, 'next_cursor: ' . jcompact($sc{next_cursor});
        push @out, 'Next page: ' . call_text('query_records', $sc{next_page}{arguments});
    } elsif ($sc{has_more} && !defined $sc{next_cursor}) {
        push @out, 'has_more is true but the server returned no next_cursor' . (defined $conn ? '' : '; retry with connection_id to page one connection') . '.';
    } else {
        push @out, 'End of results (no next_cursor).' if @srecs;
    }
    if (defined $sc{next_changes_since}) {
        push @out, 'next_changes_since: ' . jcompact($sc{next_changes_since})
          . (defined $sc{next_cursor} ? ' (finish this change session with next_cursor first; save this token to read later changes)' : ' (save it to read later changes)');
        push @out, 'Resume changes later: ' . call_text('query_records', $sc{resume_changes}{arguments});
    }
    for my $w (@warn) {
        next unless is_hash($w);
        push @out, 'warning ' . ($w->{code} // '?') . ': ' . ($w->{message} // '');
    }
    if (!$v->{fields} && @srecs) {
        push @out, 'Tip: pass "fields" to read only what you need, or use aggregate/search for summaries.';
    }
    return (join("\n", @out), \%sc);
}

sub _blob_line ($d) {
    my @p = ("blob $d->{blob_id}");
    push @p, $d->{mime_type} if defined $d->{mime_type};
    push @p, human_bytes($d->{size_bytes}) if defined $d->{size_bytes} && $d->{size_bytes} =~ /^\d+$/;
    push @p, "sha256 $d->{sha256}" if defined $d->{sha256};
    my $s = '[' . join(' · ', @p) . '; metadata only';
    $s .= $d->{export} ? "; bytes: GET $d->{export}{url} (grant-scoped, outside MCP)" : '; no export route advertised';
    return $s . ']';
}

# ---------------------------------------------------------------------------
# Shared: identify a record from id / stream+record_id / connection_id
# ---------------------------------------------------------------------------
sub _identify ($t, $tool, $v) {
    my ($stream, $rid, $conn);
    if (defined $v->{id}) {
        my $h = parse_handle($v->{id});
        PdppMcpV::Tools::arg_error('id', "id '$v->{id}' is not a record id. Use the id shown by search or query_records, e.g. \"<connection_id>:<stream>:<record_id>\".")
          unless $h;
        ($stream, $rid, $conn) = @{$h}{qw(stream record_id connection_id)};
        if (defined $v->{stream} && $v->{stream} ne $stream) {
            PdppMcpV::Tools::arg_error('stream', "stream '$v->{stream}' contradicts the id (stream '$stream').");
        }
        if (defined $v->{record_id} && $v->{record_id} ne $rid) {
            PdppMcpV::Tools::arg_error('record_id', "record_id '$v->{record_id}' contradicts the id (record '$rid').");
        }
    } else {
        ($stream, $rid) = @{$v}{qw(stream record_id)};
        PdppMcpV::Tools::arg_error('id', "$tool needs id (from search/query_records) or both stream and record_id.")
          unless defined $stream && defined $rid;
    }
    if (defined $v->{connection_id}) {
        if (defined $conn && $conn ne $v->{connection_id}) {
            PdppMcpV::Tools::arg_error('connection_id', "connection_id '$v->{connection_id}' contradicts the id (connection '$conn').");
        }
        $conn = $v->{connection_id};
    }
    return ($stream, $rid, $conn);
}

# ---------------------------------------------------------------------------
# fetch
# ---------------------------------------------------------------------------
sub fetch ($t, $args) {
    my $v = $t->validate('fetch', $args, [
        [ id            => 'string', required => 1, max_len => 8192 ],
        [ connection_id => 'string' ],
        [ fields        => 'strings' ],
        [ expand        => 'strings' ],
        [ expand_limit  => 'object' ],
    ]);
    my ($stream, $rid, $conn) = _identify($t, 'fetch', $v);
    my $xpairs = $t->expand_pairs($v);
    my $res = $t->resolve_stream($stream);
    my $src = $t->pick_source('fetch', $stream, $conn, $res, example => { id => make_handle(undef, $stream, $rid) });
    if ($src->{error}) {
        # Rewrite the example so the retry carries a complete id.
        my $sc = $src->{error}{structuredContent}{error};
        if ($sc && is_array($sc->{available_connections}) && @{ $sc->{available_connections} }) {
            my $c0 = $sc->{available_connections}[0]{connection_id};
            $sc->{example_retry} = call_text('fetch', { id => make_handle($c0, $stream, $rid) });
            $src->{error}{content}[0]{text} =~ s/^example retry: .*$/example retry: $sc->{example_retry}/m;
        }
        return $src->{error};
    }
    my $gate = $t->expand_gate('fetch', $stream, $src->{row}, $v);
    return $gate if $gate;
    $conn = $src->{connection_id};
    my @p;
    push @p, [ fields => $_ ] for @{ $v->{fields} // [] };
    push @p, [ connection_id => $conn ] if defined $conn;
    push @p, @$xpairs;
    my $r = $t->rs->get([ 'streams', $stream, 'records', $rid ], \@p);
    if (!$r->{ok}) {
        my @h;
        if (($r->{error}{code} // '') eq 'not_found') {
            push @h, "No record '$rid' in stream '$stream'" . (defined $conn ? " under connection $conn" : '') . ' within this grant. Check the id (copy it exactly from search or query_records).';
        }
        my $er = $t->rs_error_result($r->{error}, stream => $stream, connection_id => $conn, rows => ($res->{ok} ? $res->{rows} : []));
        if (@h) { $er->{content}[0]{text} .= "\n" . join("\n", @h) }
        return $er;
    }
    my $doc = _document($t, $r->{body}, $stream, $rid, $conn, $src->{row}, $v);
    return { content => [ { type => 'text', text => jcompact($doc) } ], structuredContent => $doc };
}

sub _document ($t, $rec, $stream, $rid, $conn, $row, $v) {
    my $rs = $t->rs;
    my $cid = $rec->{connection_id} // $rec->{connector_instance_id} // $conn;
    my $rst = $rec->{stream} // $stream;
    my $rkey = $rec->{id} // $rid;
    my $handle = make_handle($cid, $rst, $rkey);
    my $data = is_hash($rec->{data}) ? $rec->{data} : {};
    my %want = map { $_ => 1 } @{ $v->{fields} // [] };
    if (%want) { $data = { map { $_ => $data->{$_} } grep { $want{$_} } keys %$data } }
    my $title_f = $row ? $row->{title_field} : undef;
    my $text_f  = $row ? $row->{text_field}  : undef;

    my (%trunc, %bin, %blobs, @rendered);
    my @order = @{ field_sort([ keys %$data ], $title_f, $text_f) };
    # Budget: reserve room for the primary text field.
    my $main_len = (defined $text_f && defined $data->{$text_f} && !ref $data->{$text_f}) ? length($data->{$text_f}) : 0;
    my $reserve = $main_len > FETCH_MAIN_MAX ? FETCH_MAIN_MAX : $main_len;
    my $budget_other = FETCH_TEXT_BUDGET - $reserve;
    my @parts;
    my $used = 0;
    for my $k (@order) {
        my $val = $data->{$k};
        my $is_main = defined $text_f && $k eq $text_f;
        if (!ref $val && defined $val) {
            if (my $b = looks_binary($val)) {
                my %d = (total_chars => length($val), encoding => $b->{encoding});
                $d{approx_bytes} = approx_bytes_for($val, $b->{encoding}) unless $b->{encoding} eq 'binary';
                $d{media_type} = $b->{media_type} if $b->{media_type};
                $d{read_record_field} = { id => $handle, field => $k, allow_binary => JSON::PP::true };
                $bin{$k} = \%d;
                push @parts, "$k: [binary-like $d{encoding} value omitted: $d{total_chars} chars"
                  . (defined $d{approx_bytes} ? ' ≈ ' . human_bytes($d{approx_bytes}) : '')
                  . (defined $d{media_type} ? ", $d{media_type}" : '') . '; metadata only]';
                push @rendered, $k;
                next;
            }
            my $max;
            if ($is_main) {
                $max = FETCH_MAIN_MAX;
                my $left = FETCH_TEXT_BUDGET - $used;
                $max = $left if $left < $max;
                $max = 500 if $max < 500;
            } else {
                $max = FETCH_OTHER_MAX;
                my $left = $budget_other - $used;
                $max = $left if $left < $max;
                $max = 80 if $max < 80;
            }
            my ($txt, $cut) = clip_chars($val, $max);
            my $line = (length($txt) <= 200 && $txt !~ /\n/ && !$is_main) ? "$k: $txt" : "$k:\n$txt";
            if ($cut) {
                my %c = (id => $handle, field => $k, offset_chars => length($txt));
                $trunc{$k} = { total_chars => length($val), shown_chars => length($txt), complete => JSON::PP::false, read_record_field => \%c };
                $line .= sprintf("\n[%s cut: chars 0-%d of %d shown; continue with %s]", $k, length($txt), length($val), call_text('read_record_field', \%c));
            }
            push @parts, $line;
            $used += length $line;
            push @rendered, $k;
            next;
        }
        if (is_blob_ref($val)) {
            my $d = blob_descriptor($val, $rs, $cid);
            $blobs{$k} = $d;
            push @parts, "$k: " . _blob_line($d);
            push @rendered, $k;
            next;
        }
        if (ref $val && !is_bool($val)) {
            my $j = jcompact(sanitize_nested($val, 500));
            my ($txt, $cut) = clip_chars($j, FETCH_JSON_MAX);
            my $line = "$k: $txt";
            if ($cut) {
                $trunc{$k} = { json_chars => length($j), shown_chars => length($txt), complete => JSON::PP::false,
                               note => 'Nested JSON value cut in this document; read_record_field only reads text fields. query_records with this field in fields returns it as structured data.' };
                $line .= "\x{2026} [JSON cut at " . FETCH_JSON_MAX . " of " . length($j) . ' chars]';
            }
            push @parts, $line;
            $used += length $line;
            push @rendered, $k;
            next;
        }
        my ($pv) = value_preview($val, 200);
        push @parts, "$k: $pv";
        $used += length($parts[-1]);
        push @rendered, $k;
    }
    my (%exp_meta);
    if (is_hash($rec->{expanded})) {
        for my $rel (sort keys %{ $rec->{expanded} }) {
            my $x = $rec->{expanded}{$rel};
            my @kids = is_hash($x) && is_array($x->{data}) ? @{ $x->{data} } : (is_hash($x) ? ($x) : ());
            my @ids;
            my @kl;
            for my $kid (@kids) {
                next unless is_hash($kid);
                my $kh = make_handle($kid->{connection_id} // $cid, $kid->{stream} // $rel, $kid->{id} // '');
                push @ids, $kh;
                next if @kl >= EXPAND_CHILDREN;
                my ($pv, $cut) = clip_chars(jcompact(sanitize_nested($kid->{data} // {}, 120)), 300);
                push @kl, "- $kh: $pv" . ($cut ? "\x{2026} [cut; fetch this id for the full record]" : '');
            }
            my $more = is_hash($x) && is_true($x->{has_more});
            $exp_meta{$rel} = { ids => \@ids, has_more => ($more ? JSON::PP::true : JSON::PP::false) };
            push @parts, "expanded $rel (" . scalar(@ids) . ' record' . (@ids == 1 ? '' : 's') . ($more ? ', more exist' : '') . '):' . (@kl ? "\n" . join("\n", @kl) : ' none');
        }
    }
    my $text = @parts ? join("\n", @parts) : (is_true($rec->{deleted}) ? 'This record was deleted.' : (%want ? 'None of the requested fields are present on this record.' : 'This record has no payload fields.'));

    # Title: manifest primary-title role if rendered; otherwise an identity
    # built from envelope data and the stream's declared cursor timestamp.
    my $title;
    if (defined $title_f && defined $data->{$title_f} && !ref $data->{$title_f} && length $data->{$title_f} && !$bin{$title_f}) {
        ($title) = clip_chars($data->{$title_f}, 200);
        $title =~ s/\s+/ /g;
    }
    if (!defined $title) {
        my $ts;
        my $cf = $row ? $row->{cursor_field} : undef;
        if (defined $cf && defined $data->{$cf} && !ref $data->{$cf}) {
            my $f = $row->{fields}{$cf} // {};
            $ts = $data->{$cf} if ($f->{type} // '') =~ /time|date/ || ($f->{format} // '') =~ /date/;
        }
        $ts //= $rec->{emitted_at};
        my $label = $rec->{display_name} // $cid;
        $title = "$rst $rkey" . (defined $label ? " · $label" : '') . (defined $ts ? " · $ts" : '');
    }
    my $url = $rs->absolute('/v1/streams/' . uri_escape($rst) . '/records/' . uri_escape($rkey))
      . (defined $cid ? '?connection_id=' . uri_escape($cid) : '');
    my %meta = (stream => $rst, record_id => $rkey);
    $meta{connection_id} = $cid if defined $cid;
    my $ck = $rec->{connector_key} // ($row ? $row->{connector_key} : undef);
    $meta{connector_key} = $ck if defined $ck;
    $meta{display_name}  = $rec->{display_name} if defined $rec->{display_name};
    $meta{emitted_at}    = $rec->{emitted_at} if defined $rec->{emitted_at};
    $meta{deleted}       = JSON::PP::true if is_true($rec->{deleted});
    $meta{fields}        = \@rendered;
    $meta{projected}     = %want ? JSON::PP::true : JSON::PP::false;
    $meta{truncated_fields} = \%trunc if %trunc;
    $meta{binary_fields}    = \%bin if %bin;
    $meta{blobs}            = \%blobs if %blobs;
    $meta{expanded}         = \%exp_meta if %exp_meta;
    $meta{complete} = (%trunc ? JSON::PP::false : JSON::PP::true);
    $meta{continuation} = %trunc
      ? 'Some fields were cut; truncated_fields gives the read_record_field arguments for each.'
      : undef;
    delete $meta{continuation} unless defined $meta{continuation};
    return { id => $handle, title => $title, text => $text, url => $url, metadata => \%meta };
}

# ---------------------------------------------------------------------------
# read_record_field
# ---------------------------------------------------------------------------
sub read_record_field ($t, $args) {
    my $v = $t->validate('read_record_field', $args, [
        [ id            => 'string', max_len => 8192 ],
        [ stream        => 'string' ],
        [ record_id     => 'string', max_len => 4096 ],
        [ connection_id => 'string' ],
        [ field         => 'string', required => 1, max_len => 1024 ],
        [ offset_chars  => 'int', min => 0 ],
        [ limit_chars   => 'int', min => 1, max => PdppMcpV::Tools::WINDOW_MAX(), clamp => 1 ],
        [ q             => 'string', max_len => 1000 ],
        [ before_chars  => 'int', min => 0, max => PdppMcpV::Tools::CONTEXT_MAX() ],
        [ after_chars   => 'int', min => 0, max => PdppMcpV::Tools::CONTEXT_MAX() ],
        [ allow_binary  => 'bool' ],
    ]);
    my ($stream, $rid, $conn) = _identify($t, 'read_record_field', $v);
    if (defined $v->{q} && defined $v->{offset_chars}) {
        PdppMcpV::Tools::arg_error('offset_chars', 'Use either q (jump to a match) or offset_chars (read from a position), not both.');
    }
    if (!defined $v->{q} && (defined $v->{before_chars} || defined $v->{after_chars})) {
        PdppMcpV::Tools::arg_error(defined $v->{before_chars} ? 'before_chars' : 'after_chars', 'before_chars/after_chars only apply together with q.');
    }
    my $res = $t->resolve_stream($stream);
    my $src = $t->pick_source('read_record_field', $stream, $conn, $res, example => { id => make_handle(undef, $stream, $rid), field => $v->{field} });
    if ($src->{error}) {
        my $sc = $src->{error}{structuredContent}{error};
        if ($sc && is_array($sc->{available_connections}) && @{ $sc->{available_connections} }) {
            my $c0 = $sc->{available_connections}[0]{connection_id};
            $sc->{example_retry} = call_text('read_record_field', { id => make_handle($c0, $stream, $rid), field => $v->{field} });
            $src->{error}{content}[0]{text} =~ s/^example retry: .*$/example retry: $sc->{example_retry}/m;
        }
        return $src->{error};
    }
    $conn = $src->{connection_id};
    my $handle = make_handle($conn, $stream, $rid);
    my $limit = $v->{limit_chars};
    $limit //= PdppMcpV::Tools::WINDOW_DEFAULT() unless defined $v->{q} && (defined $v->{before_chars} || defined $v->{after_chars});
    my @p = ([ field => $v->{field} ]);
    push @p, [ offset_chars => $v->{offset_chars} ] if defined $v->{offset_chars};
    push @p, [ limit_chars => $limit ] if defined $limit;
    push @p, [ q => $v->{q} ] if defined $v->{q};
    push @p, [ before_chars => $v->{before_chars} ] if defined $v->{before_chars};
    push @p, [ after_chars => $v->{after_chars} ] if defined $v->{after_chars};
    push @p, [ connection_id => $conn ] if defined $conn;
    my $r = $t->rs->get([ 'streams', $stream, 'records', $rid, 'field-window' ], \@p);
    if (!$r->{ok}) {
        my $code = $r->{error}{code} // '';
        my @h;
        if ($code eq 'field_not_text') {
            push @h, "Field '$v->{field}' is not a text field (number, boolean, null, object or blob reference). See its value with " . call_text('fetch', { id => $handle, fields => [ $v->{field} ] }) . '.';
        } elsif ($code eq 'query_not_found') {
            push @h, "The text q was not found in '$v->{field}'. Try a shorter or different q, or read by offset_chars.";
        } elsif ($code eq 'field_not_found') {
            push @h, "This record has no field '$v->{field}'. " . call_text('fetch', { id => $handle }) . ' shows its fields.';
        } elsif ($code eq 'not_found') {
            push @h, "No record '$rid' in stream '$stream'" . (defined $conn ? " under connection $conn" : '') . ' within this grant.';
        }
        my $er = $t->rs_error_result($r->{error}, stream => $stream, connection_id => $conn, rows => ($res->{ok} ? $res->{rows} : []));
        $er->{content}[0]{text} .= "\n" . join("\n", @h) if @h;
        return $er;
    }
    my $b = $r->{body};
    my $w = is_hash($b->{window}) ? $b->{window} : {};
    my $text = $w->{text} // '';
    my $total = $w->{total_chars};
    my $start = $w->{start_chars} // 0;
    my $end   = $w->{end_chars} // ($start + length $text);
    my $lim_used = $w->{limit_chars} // $limit // length($text);
    my $complete = exists $w->{complete} ? is_true($w->{complete}) : (defined $total && $start == 0 && $end >= $total);
    my $has_more = exists $w->{has_more} ? is_true($w->{has_more}) : (defined $total && $end < $total);
    my $next_off = $w->{next_offset_chars} // ($has_more ? $end : undef);
    my $prev_off = $w->{previous_offset_chars} // ($start > 0 ? ($start - $lim_used > 0 ? $start - $lim_used : 0) : undef);
    my $field = is_hash($b->{field}) ? $b->{field} : { path => $v->{field} };
    my %base = (id => $handle, field => $v->{field}, limit_chars => $lim_used);
    my $next = defined $next_off ? { %base, offset_chars => $next_off } : undef;
    my $prev = defined $prev_off ? { %base, offset_chars => $prev_off } : undef;

    my $bin = $v->{allow_binary} ? undef : looks_binary($text);
    $bin = undef if $bin && length($text) < 120 && !$bin->{data_url};
    my %sc = (object => 'field_window', id => $handle, stream => $stream, record_id => $rid,
              (defined $conn ? (connection_id => $conn) : ()),
              field => { path => $field->{path} // $v->{field}, (defined $field->{type} ? (type => $field->{type}) : ()) });
    my %win = (start_chars => $start + 0, end_chars => $end + 0, limit_chars => $lim_used,
               complete => ($complete ? JSON::PP::true : JSON::PP::false), has_more => ($has_more ? JSON::PP::true : JSON::PP::false));
    $win{total_chars} = $total if defined $total;
    if (defined $w->{match_start_chars}) {
        $win{match_start_chars} = $w->{match_start_chars};
        $win{match_end_chars}   = $w->{match_end_chars};
    }
    my @out;
    my $range = "chars $start-$end" . (defined $total ? " of $total" : '');
    if ($bin) {
        my %d = (encoding => $bin->{encoding}, window_chars => length($text));
        $d{media_type} = $bin->{media_type} if $bin->{media_type};
        $d{total_chars} = $total if defined $total;
        $d{approx_total_bytes} = int($total * 3 / 4) if defined $total && $bin->{encoding} eq 'base64';
        $win{text} = undef;
        $win{withheld} = 'binary_like';
        $sc{window} = \%win;
        $sc{binary} = \%d;
        my $raw = { %base, offset_chars => $start + 0, allow_binary => JSON::PP::true };
        $sc{raw_read} = $raw;
        $sc{next} = $next if $next;
        push @out, "read_record_field $stream $rid · field $v->{field} · connection " . ($conn // '?') . " · $range";
        push @out, "This field looks like encoded binary ($bin->{encoding}"
          . (defined $total ? ", $total chars" : '')
          . (defined $d{approx_total_bytes} ? ' ≈ ' . human_bytes($d{approx_total_bytes}) : '')
          . (defined $d{media_type} ? ", $d{media_type}" : '') . '); its text was withheld (metadata only).';
        push @out, 'To receive the raw encoded window anyway: ' . call_text('read_record_field', $raw);
        push @out, 'Blob bytes, when the record has a blob_ref, are served outside MCP by the grant-scoped GET /v1/blobs/{blob_id}.';
        return { content => [ { type => 'text', text => join("\n", @out) } ], structuredContent => \%sc };
    }
    $win{text} = $text;
    $sc{window} = \%win;
    $sc{next} = $next;
    $sc{previous} = $prev;
    my @warn = (@{ $v->{__warnings} // [] }, (is_hash($b->{meta}) && is_array($b->{meta}{warnings}) ? @{ $b->{meta}{warnings} } : ()));
    $sc{warnings} = \@warn if @warn;
    push @out, "read_record_field $stream $rid · field $v->{field}" . (defined $field->{type} ? " ($field->{type})" : '')
      . ' · connection ' . ($conn // '?') . " · $range · " . ($complete ? 'complete (whole field)' : $has_more ? 'more after this window' : 'end of field');
    if (defined $w->{match_start_chars}) {
        push @out, "match for q " . jcompact($v->{q} // '') . " at chars $w->{match_start_chars}-$w->{match_end_chars}";
    }
    push @out, '--- text ---', $text, '--- end of window ---';
    push @out, 'next: ' . call_text('read_record_field', $next) if $next;
    push @out, 'previous: ' . call_text('read_record_field', $prev) if $prev;
    push @out, 'warning ' . ($_->{code} // '?') . ': ' . ($_->{message} // '') for grep { is_hash($_) } @warn;
    return { content => [ { type => 'text', text => join("\n", @out) } ], structuredContent => \%sc };
}

1;
