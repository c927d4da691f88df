package PdppMcpV::Tools;
# Tool surface: definitions, argument validation, typed errors, grant/token
# checks and connection (source) resolution shared by all six read tools.
use v5.36;
use utf8;
use JSON::PP ();
use PdppMcpV::Util qw(jcompact jsize is_hash is_array is_bool is_true json_decode_chars);
use PdppMcpV::Schema qw(schema_rows normalize_row bearer_info);
use PdppMcpV::Render qw(call_text);

use constant {
    PROBE_STREAM   => '__pdpp_mcp_v_token_probe__',
    AMBIG_CAP      => 10,
    DEFAULT_LIMIT  => 10,
    MAX_LIMIT      => 100,
    WINDOW_DEFAULT => 4000,
    WINDOW_MAX     => 16384,
    CONTEXT_MAX    => 8192,
};

our @TOOL_NAMES = qw(schema query_records aggregate search fetch read_record_field);

# ---------------------------------------------------------------------------
# Server instructions (published in the initialize result).  The first 512
# characters are self-contained.
# ---------------------------------------------------------------------------
sub instructions () {
    my $core = join ' ',
      'Read-only PDPP personal data, limited to this server\'s grant.',
      '1) Discover first: schema() indexes every granted stream by connector and connection; schema({stream}) gives its fields, filters, sort and aggregations.',
      '2) If a stream has several connections, pass connection_id.',
      '3) Filters are typed JSON: {"label":"inbox"} or {"sent_at":{"gte":"2026-01-01T00:00:00Z"}}.',
      '4) Results are bounded pages: request only needed fields, keep limit small, follow next_cursor; prefer aggregate or search over wide reads.';
    my $more = <<'EOT';

Tools. schema: discovery (GET /v1/schema). query_records: canonical records of one stream, paged (next_cursor), optional exact count and changes feed (changes_since "beginning", then the returned next_changes_since). aggregate: count/sum/min/max/count_distinct, optionally group_by a field or group_by_time with granularity. search: text search across granted streams (mode lexical by default, semantic or hybrid when the server supports them); limit caps the merged hits across all connections and every hit names its connection_id, connector_key, stream and record id. fetch: one record as a document {id,title,text,url,metadata}. read_record_field: bounded character window of one text field (offset_chars/limit_chars, or q to jump to a match).

Handles. Record ids look like "<connection_id>:<stream>:<record_id>"; use them as fetch id or read_record_field id. Every cursor, id, count and continuation appears in the text content; structuredContent repeats the same data as structured output (it is not hidden, and it is bounded too).

connection_id. query_records, fetch and read_record_field need one connection: when the stream has several and none is given, the result is an ambiguous_connection error listing candidates (schema({stream}) has the full list). aggregate merges connections of the same connector; search fans in across all connections unless connection_id is given.

Evidence. Long text is cut with an explicit marker and a read_record_field continuation; nothing is silently truncated. Binary-like values are described (size, encoding, media type) instead of inlined; blob bytes stay outside MCP (grant-scoped GET /v1/blobs/{blob_id}). Search evidence is shown only for proven text matches, with <mark> highlights.

Errors come back as tool results with a typed code, a message and retry hints (retry_with, available_connections). Correct the arguments and retry; never ask the user for other credentials or broader access.
EOT
    return $core . "\n" . $more;
}

# ---------------------------------------------------------------------------
# Tool definitions (tools/list).
# ---------------------------------------------------------------------------
my $RO = { readOnlyHint => JSON::PP::true, destructiveHint => JSON::PP::false,
           idempotentHint => JSON::PP::true, openWorldHint => JSON::PP::false };

sub _filter_schema ($desc) {
    return { type => 'object', description => $desc,
             additionalProperties => { type => [ 'string', 'number', 'boolean', 'object' ] } };
}

sub definitions () {
    my @t;
    push @t, {
        name => 'schema', title => 'Discover granted PDPP data',
        description => 'Read-only discovery via GET /v1/schema. Without stream: a compact index of every granted stream grouped by connector and connection. With stream (optionally connection_id): fields, types and roles, filter operators, sort, projection and count support, search modes, expand relations and aggregations, with a legend and example calls. detail "full" adds the raw per-field JSON Schema and needs stream. Start here; the server instructions cover connections and paging.',
        inputSchema => { type => 'object', additionalProperties => JSON::PP::false, properties => {
            stream        => { type => 'string', description => 'Stream name from the index. Omit for the index.' },
            connection_id => { type => 'string', description => 'Show only this granted connection of the stream.' },
            detail        => { type => 'string', enum => [ 'compact', 'full' ], description => 'compact (default) or full (needs stream).' },
        } },
        annotations => { %$RO, title => 'Discover granted PDPP data' },
    };
    push @t, {
        name => 'query_records', title => 'Read records of one stream',
        description => 'Read-only page of canonical records from one stream (GET /v1/streams/{stream}/records). The text lists each record with its fetch id and bounded field previews; structuredContent carries the same page as structured output. Narrow with fields and a typed filter, order with sort, follow next_cursor, set count for an exact total, or read changes with changes_since. Prefer aggregate or search when full records are not needed; valid fields come from schema(stream).',
        inputSchema => { type => 'object', additionalProperties => JSON::PP::false, required => ['stream'], properties => {
            stream        => { type => 'string', description => 'Stream name (see schema).' },
            connection_id => { type => 'string', description => 'Source connection; needed when the stream has several.' },
            fields        => { type => 'array', items => { type => 'string' }, description => 'Projection: only these fields.' },
            filter        => _filter_schema('Typed filter: {"field":value} for equality or {"field":{"gte":..,"lt":..}} for ranges; operators per field in schema(stream).'),
            sort          => { type => 'string', description => 'Sort field, "-" prefix for descending (e.g. "-sent_at"); schema(stream) shows sortable fields.' },
            order         => { type => 'string', enum => [ 'asc', 'desc' ] },
            limit         => { type => 'integer', minimum => 1, maximum => MAX_LIMIT, description => 'Page size, default ' . DEFAULT_LIMIT . '.' },
            cursor        => { type => 'string', description => 'next_cursor from the previous page.' },
            count         => { type => 'boolean', description => 'Include the exact total of matching records.' },
            changes_since => { type => 'string', description => '"beginning" or a saved next_changes_since value.' },
            expand        => { type => 'array', items => { type => 'string' }, description => 'Relations to embed (only streams whose schema lists expand relations).' },
            expand_limit  => { type => 'object', additionalProperties => { type => 'integer', minimum => 1 }, description => 'Per-relation cap, e.g. {"attachments":5}.' },
        } },
        annotations => { %$RO, title => 'Read records of one stream' },
    };
    push @t, {
        name => 'aggregate', title => 'Aggregate one stream',
        description => 'Read-only aggregate over one stream (GET /v1/streams/{stream}/aggregate): count, sum, min, max or count_distinct, optionally grouped by a field (group_by) or a time bucket (group_by_time + granularity). Answers counts and summaries without paging records; the answer is in the text and in structuredContent. Usable fields per metric: schema(stream).',
        inputSchema => { type => 'object', additionalProperties => JSON::PP::false, required => [ 'stream', 'metric' ], properties => {
            stream        => { type => 'string' },
            connection_id => { type => 'string', description => 'Scope to one connection of the stream.' },
            metric        => { type => 'string', enum => [qw(count sum min max count_distinct)] },
            field         => { type => 'string', description => 'Field for sum/min/max/count_distinct.' },
            group_by      => { type => 'string', description => 'Group by this field (metric count).' },
            group_by_time => { type => 'string', description => 'Bucket this timestamp field (metric count).' },
            granularity   => { type => 'string', enum => [qw(minute hour day week month quarter year)] },
            time_zone     => { type => 'string', description => 'IANA zone for time buckets, default UTC.' },
            limit         => { type => 'integer', minimum => 1, maximum => 100, description => 'Max groups, default 10.' },
            filter        => _filter_schema('Typed filter, same form as query_records.'),
        } },
        annotations => { %$RO, title => 'Aggregate one stream' },
    };
    push @t, {
        name => 'search', title => 'Search granted records',
        description => 'Read-only text search over granted streams (GET /v1/search; mode semantic or hybrid use /v1/search/semantic or /v1/search/hybrid). limit caps the merged hits across all connections. Each hit gives an id for fetch, its source identity and, for proven text matches, a bounded <mark>-highlighted evidence preview with a read_record_field continuation; structuredContent holds the same hits as structured output. Page with next_cursor.',
        inputSchema => { type => 'object', additionalProperties => JSON::PP::false, required => ['q'], properties => {
            q             => { type => 'string', description => 'Search text.' },
            streams       => { type => 'array', items => { type => 'string' }, description => 'Only these streams.' },
            connection_id => { type => 'string', description => 'Search one connection instead of all.' },
            mode          => { type => 'string', enum => [qw(lexical semantic hybrid)], description => 'Default lexical.' },
            limit         => { type => 'integer', minimum => 1, maximum => MAX_LIMIT, description => 'Max merged hits, default ' . DEFAULT_LIMIT . '.' },
            cursor        => { type => 'string', description => 'next_cursor from the previous search (lexical/semantic).' },
            filter        => _filter_schema('Typed filter; needs exactly one entry in streams.'),
        } },
        annotations => { %$RO, title => 'Search granted records' },
    };
    push @t, {
        name => 'fetch', title => 'Fetch one record as a document',
        description => 'Read-only fetch of one record (GET /v1/streams/{stream}/records/{id}) as a document {id, title, text, url, metadata}: structuredContent is the document, and the text content is the same document as JSON. id comes from search or query_records (format in the server instructions). text is bounded: long fields end with a read_record_field continuation; binary values are described, not inlined. fields limits what is rendered. For canonical structured records use query_records.',
        inputSchema => { type => 'object', additionalProperties => JSON::PP::false, required => ['id'], properties => {
            id            => { type => 'string', description => 'Record id from search or query_records ("<connection_id>:<stream>:<record_id>") or the document url.' },
            connection_id => { type => 'string', description => 'Connection, if the id does not carry one.' },
            fields        => { type => 'array', items => { type => 'string' }, description => 'Render only these fields.' },
            expand        => { type => 'array', items => { type => 'string' } },
            expand_limit  => { type => 'object', additionalProperties => { type => 'integer', minimum => 1 } },
        } },
        annotations => { %$RO, title => 'Fetch one record as a document' },
    };
    push @t, {
        name => 'read_record_field', title => 'Read a window of one text field',
        description => 'Read-only bounded character window of one top-level text field of one record (GET /v1/streams/{stream}/records/{id}/field-window). Give offset_chars/limit_chars, or q to center the window on a match. Returns the text inline with offsets, total size, completion state and next/previous arguments. Use it to continue text that other results cut off.',
        inputSchema => { type => 'object', additionalProperties => JSON::PP::false, required => ['field'], properties => {
            id            => { type => 'string', description => 'Record id from search/query_records/fetch. Alternatively give stream and record_id.' },
            stream        => { type => 'string' },
            record_id     => { type => 'string' },
            connection_id => { type => 'string', description => 'Connection, if the id does not carry one.' },
            field         => { type => 'string', description => 'Top-level text field name.' },
            offset_chars  => { type => 'integer', minimum => 0, description => 'Start offset in characters, default 0.' },
            limit_chars   => { type => 'integer', minimum => 1, maximum => WINDOW_MAX, description => 'Window size, default ' . WINDOW_DEFAULT . '.' },
            q             => { type => 'string', description => 'Case-insensitive text to center on (instead of offset_chars).' },
            before_chars  => { type => 'integer', minimum => 0, maximum => CONTEXT_MAX, description => 'Context before the q match.' },
            after_chars   => { type => 'integer', minimum => 0, maximum => CONTEXT_MAX, description => 'Context after the q match.' },
            allow_binary  => { type => 'boolean', description => 'Return the raw window even if it looks like encoded binary.' },
        } },
        annotations => { %$RO, title => 'Read a window of one text field' },
    };
    return \@t;
}

# ---------------------------------------------------------------------------
# Object
# ---------------------------------------------------------------------------
sub new ($class, %a) {
    my $self = bless { rs => $a{rs}, state => { token_ok => 0, token_refused => undef } }, $class;
    require PdppMcpV::T::Schema;
    require PdppMcpV::T::Records;
    require PdppMcpV::T::Search;
    return $self;
}

sub rs ($self) { return $self->{rs} }

my %DISPATCH = (
    schema            => \&PdppMcpV::T::Schema::run,
    query_records     => \&PdppMcpV::T::Records::query_records,
    aggregate         => \&PdppMcpV::T::Search::aggregate,
    search            => \&PdppMcpV::T::Search::search,
    fetch             => \&PdppMcpV::T::Records::fetch,
    read_record_field => \&PdppMcpV::T::Records::read_record_field,
);

sub has_tool ($self, $name) { return exists $DISPATCH{$name} }

# Run one tool.  Always returns a CallToolResult hash.
sub call ($self, $name, $args) {
    my $res = eval {
        my $gate = $self->ensure_client_token;
        return $gate if $gate;
        $DISPATCH{$name}->($self, $args // {});
    };
    if (my $e = $@) {
        if (ref $e eq 'HASH' && $e->{__pdpp_error}) {
            return $self->error_result($e->{__pdpp_error}, @{ $e->{hints} // [] });
        }
        my $msg = "$e";
        $msg =~ s/\s+$//;
        warn "pdpp-mcp-v: internal error in $name: $msg\n";
        return $self->error_result({ type => 'api_error', code => 'adapter_internal_error',
            message => "The adapter failed while handling $name. This is a bug in the adapter, not in your arguments." });
    }
    return $res;
}

# ---------------------------------------------------------------------------
# Token posture: only grant-scoped client tokens are used.
# ---------------------------------------------------------------------------

# Ask the RS what kind of bearer we hold.  Returns
#   { kind => 'client'|'owner'|..., grant_id } on success,
#   { error => {...} } when the RS could not answer.
sub probe_token ($self) {
    my $r = $self->rs->get(['schema'], [ [ view => 'compact' ], [ stream => PROBE_STREAM ] ]);
    return { error => $r->{error}, status => $r->{status} } unless $r->{ok};
    my $b = bearer_info($r->{body});
    return { kind => $b->{token_kind}, grant_id => $b->{grant_id}, scope => $b->{scope} };
}

sub note_bearer ($self, $doc) {
    my $b = bearer_info($doc);
    return unless defined $b->{token_kind};
    if ($b->{token_kind} eq 'client') {
        $self->{state}{token_ok} = 1;
        $self->{state}{grant_id} //= $b->{grant_id};
    } else {
        $self->{state}{token_refused} = $b->{token_kind};
    }
}

sub mark_refused ($self, $kind) { $self->{state}{token_refused} = $kind }
sub mark_client ($self, $grant_id) { $self->{state}{token_ok} = 1; $self->{state}{grant_id} //= $grant_id }
sub grant_id ($self) { return $self->{state}{grant_id} }

sub _refused_result ($self) {
    my $kind = $self->{state}{token_refused};
    return $self->error_result({ type => 'permission_error', code => 'owner_token_refused',
        message => "This adapter only works with a grant-scoped PDPP client token; the configured token is not one (token kind: $kind), so no data request was made. The user must configure a client token issued for a grant." });
}

# Returns undef when requests may proceed, or an error result.
sub ensure_client_token ($self) {
    return $self->_refused_result if $self->{state}{token_refused};
    return undef if $self->{state}{token_ok};
    my $p = $self->probe_token;
    if ($p->{error}) {
        return $self->rs_error_result($p->{error});
    }
    if (!defined $p->{kind}) {
        # The RS did not describe the bearer; it enforces scope itself.
        $self->{state}{token_ok} = 1;
        return undef;
    }
    if ($p->{kind} eq 'client') {
        $self->mark_client($p->{grant_id});
        return undef;
    }
    $self->mark_refused($p->{kind});
    return $self->_refused_result;
}

# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------
sub fail ($err, @hints) { die { __pdpp_error => $err, hints => \@hints } }

sub arg_error ($param, $message, @hints) {
    fail({ type => 'invalid_request_error', code => 'invalid_argument', param => $param, message => $message }, @hints);
}

sub error_result ($self, $err, @hints) {
    my %e = %$err;
    $e{hint} = join(' ', @hints) if @hints && !defined $e{hint};
    my @lines = ("Error $e{code}: $e{message}");
    push @lines, "param: $e{param}" if defined $e{param} && !ref $e{param};
    push @lines, "retry_with: $e{retry_with}" if defined $e{retry_with} && !ref $e{retry_with};
    if (is_array($e{available_connections}) && @{ $e{available_connections} }) {
        my $n = $e{available_connection_count} // scalar @{ $e{available_connections} };
        push @lines, "available connections ($n" . ($e{available_connections_truncated} ? ', first ' . scalar(@{ $e{available_connections} }) . ' shown' : '') . '):';
        for my $c (@{ $e{available_connections} }) {
            next unless is_hash($c);
            my @p = ("connection_id $c->{connection_id}");
            push @p, "connector_key $c->{connector_key}" if defined $c->{connector_key};
            push @p, '"' . $c->{display_name} . '"' if defined $c->{display_name};
            push @p, "stream $c->{stream}" if defined $c->{stream};
            push @p, "grant $c->{grant_id}" if defined $c->{grant_id};
            push @lines, '- ' . join(' · ', @p);
        }
        push @lines, $e{discovery_hint} if defined $e{discovery_hint};
    }
    push @lines, "example retry: $e{example_retry}" if defined $e{example_retry};
    push @lines, @hints;
    push @lines, "request_id: $e{request_id}" if defined $e{request_id};
    return {
        content           => [ { type => 'text', text => join("\n", @lines) } ],
        structuredContent => { error => \%e },
        isError           => JSON::PP::true,
    };
}

# Map an RS error into a tool error with recovery hints.
sub rs_error_result ($self, $err, %ctx) {
    my %e = %$err;
    delete $e{connector_instance_id};
    my $code = $e{code} // '';
    my $st   = $e{http_status} // 0;
    my @h;
    my $stream = $ctx{stream};
    if ($code eq 'authentication_error' || $st == 401 && $code !~ /^context\./) {
        push @h, 'The resource server rejected the client token this adapter is configured with (missing, invalid, expired or revoked). The user needs to configure a fresh grant-scoped client token; retrying with other credentials is not possible.';
    } elsif ($code eq 'context.stream_not_allowed' || $code eq 'grant_stream_not_allowed') {
        push @h, 'That stream is not part of this grant. Call schema for the list of granted streams.';
    } elsif ($code eq 'context.instance_mismatch' || $code eq 'connection_not_found') {
        push @h, 'That connection_id is not granted' . (defined $stream ? " for stream '$stream'" : '') . '. ' . (defined $stream ? call_text('schema', { stream => $stream }) : 'schema') . ' lists the valid connection ids.';
    } elsif ($code eq 'grant_revoked' || $code eq 'grant_expired' || $code eq 'grant_invalid') {
        push @h, 'The grant behind this adapter is no longer usable; the user must re-authorize access. No retry will succeed.';
    } elsif ($code eq 'unknown_field' || $code eq 'field_not_granted') {
        push @h, 'Use only granted field names: ' . (defined $stream ? call_text('schema', { stream => $stream, (defined $ctx{connection_id} ? (connection_id => $ctx{connection_id}) : ()) }) : 'schema(stream)') . ' lists them.';
    } elsif ($code eq 'invalid_cursor' && ($e{param} // '') eq 'changes_since') {
        push @h, 'changes_since accepts only "beginning" or a next_changes_since value returned earlier (not a date); use a range filter on a timestamp field for date windows.';
    } elsif ($code eq 'invalid_cursor') {
        push @h, 'Cursors are opaque and tied to the same arguments; repeat the original call without cursor to restart paging.';
    } elsif ($code eq 'cursor_expired') {
        push @h, 'The cursor or change token is too old. Restart without cursor, or with changes_since "beginning".';
    } elsif ($code eq 'invalid_sort') {
        push @h, 'Only the sort fields listed by schema(stream) are sortable.';
    } elsif ($code eq 'invalid_expand') {
        push @h, 'Expandable relations are listed under "expand" in schema(stream).';
    } elsif ($code eq 'ambiguous_connection' || $code eq 'ambiguous_schema_detail') {
        push @h, 'Retry with connection_id set to one of the available connections.';
    } elsif (($e{param} // '') eq 'filter' && $st == 400) {
        push @h, 'Filter operators per field are listed as filter=… in ' . (defined $stream ? call_text('schema', { stream => $stream }) : 'schema(stream)') . '; equality is {"field":value}, ranges are {"field":{"gte":…,"lt":…}}.';
    } elsif ($st == 429) {
        push @h, 'Rate limited by the resource server; wait before retrying.';
    } elsif ($st >= 500 || $code eq 'rs_unreachable') {
        push @h, 'The resource server failed or is unreachable; retrying later may help.';
    }
    $e{available_connections} = $self->_enrich_connections($e{available_connections}, $ctx{rows}, $stream)
      if is_array($e{available_connections});
    return $self->error_result(\%e, @h);
}

sub _enrich_connections ($self, $list, $rows, $stream) {
    my %by;
    for my $r (@{ $rows // [] }) {
        $by{ $_->{connection_id} } //= $r for @{ $r->{connections} };
    }
    my @out;
    for my $c (@$list) {
        next unless is_hash($c);
        my %e = %$c;
        delete $e{connector_instance_id};
        my $row = $by{ $e{connection_id} // '' };
        $e{connector_key} //= $row->{connector_key} if $row;
        $e{grant_id} //= $self->grant_id if defined $self->grant_id;
        $e{stream} //= $stream if defined $stream;
        push @out, \%e;
    }
    return \@out;
}

# ---------------------------------------------------------------------------
# Argument validation
# ---------------------------------------------------------------------------
# $spec: [ [name, type, %opts], ... ]; types: string int bool strings object
sub validate ($self, $tool, $args, $spec) {
    fail({ type => 'invalid_request_error', code => 'invalid_argument', message => "$tool arguments must be a JSON object." })
      unless is_hash($args);
    my %known = map { $_->[0] => $_ } @$spec;
    my %out;
    for my $k (sort keys %$args) {
        next if !defined $args->{$k};    # null = omitted
        if (!$known{$k}) {
            if ($k eq 'connector_instance_id') {
                arg_error($k, 'connector_instance_id is not accepted; use connection_id.');
            }
            arg_error($k, "Unknown argument '$k' for $tool. Accepted: " . join(', ', map { $_->[0] } @$spec) . '.');
        }
    }
    my @clamped;
    for my $s (@$spec) {
        my ($name, $type, %o) = @$s;
        my $v = $args->{$name};
        if (!defined $v || (!ref $v && $v eq '' && $type ne 'string_empty_ok')) {
            arg_error($name, "$name is required.") if $o{required};
            next;
        }
        $o{__clamped} = \@clamped;
        $out{$name} = _coerce($tool, $name, $type, $v, \%o);
    }
    $out{__warnings} = \@clamped if @clamped;
    return \%out;
}

sub _coerce ($tool, $name, $type, $v, $o) {
    if ($type eq 'string') {
        arg_error($name, "$name must be a string.") if ref $v && !is_bool($v);
        my $s = "$v";
        $s =~ s/^\s+|\s+$//g;
        arg_error($name, "$name must not be empty.") if $s eq '';
        arg_error($name, "$name is too long.") if length($s) > ($o->{max_len} // 4096);
        if ($o->{enum}) {
            my %ok = map { $_ => 1 } @{ $o->{enum} };
            my $l = lc $s;
            arg_error($name, "$name must be one of: " . join(', ', @{ $o->{enum} }) . " (got '$s').") unless $ok{$l};
            $s = $l;
        }
        return $s;
    }
    if ($type eq 'int') {
        arg_error($name, "$name must be an integer.") if ref $v && !is_bool($v) || is_bool($v);
        arg_error($name, "$name must be an integer (got '$v').") unless "$v" =~ /^\s*-?\d+\s*$/;
        my $n = int("$v");
        arg_error($name, "$name must be >= $o->{min} (got $n).") if defined $o->{min} && $n < $o->{min};
        if (defined $o->{max} && $n > $o->{max}) {
            if ($o->{clamp}) {
                push @{ $o->{__clamped} }, { code => 'limit_clamped', param => $name, requested => $n, used => $o->{max},
                                             message => "$name=$n exceeds the maximum; $o->{max} was used." };
                return $o->{max};
            }
            arg_error($name, "$name must be <= $o->{max} (got $n).");
        }
        return $n;
    }
    if ($type eq 'bool') {
        return $v ? 1 : 0 if is_bool($v);
        arg_error($name, "$name must be true or false.") if ref $v;
        return 1 if "$v" =~ /^(?:true|1|yes)$/i;
        return 0 if "$v" =~ /^(?:false|0|no)$/i;
        arg_error($name, "$name must be true or false (got '$v').");
    }
    if ($type eq 'strings') {
        my @l;
        if (is_array($v)) { @l = @$v }
        elsif (!ref $v)   { @l = split /\s*,\s*/, $v }
        else              { arg_error($name, "$name must be an array of strings.") }
        my (%seen, @out);
        for my $x (@l) {
            arg_error($name, "$name must contain only strings.") if ref $x || !defined $x;
            (my $t = $x) =~ s/^\s+|\s+$//g;
            next if $t eq '';
            push @out, $t unless $seen{$t}++;
        }
        arg_error($name, "$name must not be empty.") unless @out;
        arg_error($name, "$name has too many entries (max " . ($o->{max_items} // 200) . ').') if @out > ($o->{max_items} // 200);
        return \@out;
    }
    if ($type eq 'object') {
        my $h = $v;
        if (!ref $h) {
            $h = eval { json_decode_chars($v) };
            arg_error($name, "$name must be a JSON object.") unless is_hash($h);
        }
        arg_error($name, "$name must be a JSON object.") unless is_hash($h);
        return $h;
    }
    die "unknown type $type";
}

# Turn a typed filter object into RS query pairs (filter[f]=v, filter[f][op]=v).
sub filter_pairs ($self, $filter, $param = 'filter') {
    my @p;
    for my $f (sort keys %$filter) {
        arg_error($param, "$param field names must be non-empty.") if $f eq '';
        my $v = $filter->{$f};
        if (is_hash($v)) {
            arg_error($param, "$param.$f needs at least one operator, e.g. {\"gte\": ...}.") unless %$v;
            for my $op (sort keys %$v) {
                arg_error($param, "Unknown operator '$op' in $param.$f; use gte, gt, lte or lt (or a plain value for equality).")
                  unless $op =~ /^(?:gte|gt|lte|lt|eq)$/;
                my $x = $v->{$op};
                arg_error($param, "$param.$f.$op must be a string, number or boolean.") if !defined($x) || (ref $x && !is_bool($x));
                my $val = is_bool($x) ? ($x ? 'true' : 'false') : "$x";
                if ($op eq 'eq') { push @p, [ "filter[$f]", $val ] }
                else             { push @p, [ "filter[$f][$op]", $val ] }
            }
        } elsif (is_array($v)) {
            arg_error($param, "$param.$f: lists are not supported; use one value for equality or an operator object for ranges.");
        } elsif (!defined $v) {
            arg_error($param, "$param.$f: null is not a filter value.");
        } else {
            push @p, [ "filter[$f]", is_bool($v) ? ($v ? 'true' : 'false') : "$v" ];
        }
    }
    return \@p;
}

# ---------------------------------------------------------------------------
# Source (connection) resolution
# ---------------------------------------------------------------------------

# Fetch the compact schema scoped to one stream and describe its sources.
# Returns { ok => 1, rows => [normalized], candidates => [...] } or
#         { ok => 0, error => {...} } (schema unavailable: callers fail open).
sub resolve_stream ($self, $stream) {
    my $r = $self->rs->get(['schema'], [ [ view => 'compact' ], [ stream => $stream ] ]);
    if (!$r->{ok} && ($r->{status} // 0) == 400) {
        $r = $self->rs->get(['schema'], [ [ stream => $stream ] ]);
    }
    return { ok => 0, error => $r->{error} } unless $r->{ok};
    $self->note_bearer($r->{body});
    if ($self->{state}{token_refused}) {
        fail({ type => 'permission_error', code => 'owner_token_refused',
               message => 'This adapter only works with a grant-scoped PDPP client token; the configured token is not one.' });
    }
    my @rows = map { normalize_row($_) } grep { $_->{stream}{name} eq $stream } @{ schema_rows($r->{body}) };
    my (@cands, %seen);
    for my $row (@rows) {
        for my $c (@{ $row->{connections} }) {
            next if $seen{ $c->{connection_id} }++;
            push @cands, { connection_id => $c->{connection_id}, display_name => $c->{display_name},
                           connector_key => $row->{connector_key}, connector_name => $row->{connector_name}, row => $row };
        }
    }
    return { ok => 1, rows => \@rows, candidates => \@cands, body => $r->{body} };
}

# Candidate list entry for errors.
sub conn_entry ($self, $c, $stream) {
    my %e = (connection_id => $c->{connection_id});
    $e{connector_key} = $c->{connector_key} if defined $c->{connector_key};
    $e{grant_id}      = $self->grant_id if defined $self->grant_id;
    $e{display_name}  = $c->{display_name} if defined $c->{display_name};
    $e{stream}        = $stream;
    return \%e;
}

sub ambiguous_error ($self, $tool, $stream, $cands, $example) {
    my $n    = scalar @$cands;
    my @list = map { $self->conn_entry($_, $stream) } @$cands[ 0 .. ($n > AMBIG_CAP ? AMBIG_CAP : $n) - 1 ];
    my %ck   = map { ($_->{connector_key} // '') => 1 } @$cands;
    my %e = (
        type          => 'invalid_request_error',
        code          => 'ambiguous_connection',
        message       => "Stream '$stream' is granted under $n connections" . (keys(%ck) > 1 ? ' of ' . scalar(keys %ck) . ' connectors' : '') . '; '
                         . ($tool eq 'aggregate' ? 'aggregate merges connections only when they belong to one connector (and never for count_distinct)'
                            : $tool eq 'schema' ? 'exhaustive schema is served for one connection'
                            : "$tool reads one connection at a time") . '. Pass connection_id.',
        param         => 'connection_id',
        retry_with    => 'connection_id',
        available_connections          => \@list,
        available_connection_count     => $n,
        available_connections_truncated => ($n > AMBIG_CAP ? JSON::PP::true : JSON::PP::false),
        discovery_hint => 'Call ' . call_text('schema', { stream => $stream }) . ' for the full connection index of this stream, then retry with connection_id.',
    );
    $e{available_connections_omitted} = $n - AMBIG_CAP if $n > AMBIG_CAP;
    $e{example_retry} = call_text($tool, { %$example, connection_id => $cands->[0]{connection_id} }) if $example;
    return $self->error_result(\%e);
}

sub not_granted_conn_error ($self, $tool, $stream, $conn, $cands) {
    my $n    = scalar @$cands;
    my @list = map { $self->conn_entry($_, $stream) } @$cands[ 0 .. ($n > AMBIG_CAP ? AMBIG_CAP : $n) - 1 ];
    my %e = (type => 'invalid_request_error', code => 'connection_not_found', param => 'connection_id',
             message => "connection_id '$conn' is not a granted connection of stream '$stream'.",
             retry_with => 'connection_id',
             available_connections => \@list, available_connection_count => $n,
             available_connections_truncated => ($n > AMBIG_CAP ? JSON::PP::true : JSON::PP::false));
    $e{discovery_hint} = 'Call ' . call_text('schema', { stream => $stream }) . ' for the full list.' if $n > AMBIG_CAP;
    return $self->error_result(\%e);
}

# Decide which connection a single-source read uses.
#   %o: allow_fanin (bool: same-connector fan-in allowed), example (args)
# Returns { connection_id, row, fanin => [cands] } or { error => result }.
sub pick_source ($self, $tool, $stream, $conn, $res, %o) {
    return { connection_id => $conn, row => undef, schema_unavailable => 1 } unless $res->{ok};
    my $cands = $res->{candidates};
    if (!@$cands) {
        # Stream not in the schema document: let the RS decide (it enforces the grant).
        return { connection_id => $conn, row => undef, unknown_stream => 1 };
    }
    if (defined $conn) {
        my ($m) = grep { $_->{connection_id} eq $conn } @$cands;
        return { error => $self->not_granted_conn_error($tool, $stream, $conn, $cands) } unless $m;
        return { connection_id => $conn, row => $m->{row}, cand => $m };
    }
    return { connection_id => $cands->[0]{connection_id}, row => $cands->[0]{row}, cand => $cands->[0] } if @$cands == 1;
    if ($o{allow_fanin}) {
        my %ck = map { ($_->{connector_key} // '') => 1 } @$cands;
        if (keys(%ck) == 1) {
            return { connection_id => undef, row => $cands->[0]{row}, fanin => $cands };
        }
    }
    return { error => $self->ambiguous_error($tool, $stream, $cands, $o{example}) };
}

# Expand gate (before any records request): reject expand on streams whose
# live schema advertises no expand capabilities.  Fails open when the schema
# row is unknown.
sub expand_gate ($self, $tool, $stream, $row, $v) {
    return undef unless $v->{expand} || $v->{expand_limit};
    return undef unless $row;
    return undef if @{ $row->{expand} };
    return $self->error_result({
        type => 'invalid_request_error', code => 'invalid_expand', param => 'expand',
        message => "Stream '$stream' does not advertise any expand relations (expand_capabilities is empty in GET /v1/schema for this stream), so expand/expand_limit cannot be used with $tool on it.",
    }, 'Check expand_capabilities via ' . call_text('schema', { stream => $stream }) . ' (the capability source, GET /v1/schema); drop expand to read the records.');
}

sub expand_pairs ($self, $v) {
    my @p;
    if ($v->{expand_limit}) {
        my %ex = map { $_ => 1 } @{ $v->{expand} // [] };
        for my $rel (sort keys %{ $v->{expand_limit} }) {
            my $n = $v->{expand_limit}{$rel};
            arg_error('expand_limit', "expand_limit.$rel must be a positive integer.")
              unless defined $n && !ref $n && "$n" =~ /^\d+$/ && $n >= 1;
            arg_error('expand_limit', "expand_limit.$rel needs '$rel' in expand.") unless $ex{$rel};
        }
    }
    push @p, [ expand => $_ ] for @{ $v->{expand} // [] };
    push @p, [ "expand_limit[$_]", int($v->{expand_limit}{$_}) ] for sort keys %{ $v->{expand_limit} // {} };
    return \@p;
}

1;
