/*
 * The fencing protocol of fenceguard, as a transition system checked by Alloy 6.
 *
 * One resource. Redis (a master and one replica, each with its own clock) mints tokens and holds the
 * lock; three enforcement points keep their own mark: the row CAS of fenceguard-jdbc (UPDATE ... WHERE
 * current_token <= new), the high-water claim (a conditional upsert that keeps the high-water row locked until the
 * transaction ends) and the HTTP high-water mark of fenceguard-http-filter.
 *
 * Clients are as hostile as real ones: any client may present, at any later time and any number of
 * times, any lease it was ever granted (a holder paused past its lease, a request stuck in flight,
 * a retried HTTP request). Leases expire, are renewed and released in Redis; Redis loses its data
 * (restart without persistence, FLUSHALL, idle expiry of the keys) and fails over to a replica that
 * missed writes; either server's clock steps forward or back.
 *
 * Tokens are minted in one of two modes. The clock floor (the default): token = max(counter + 1, Redis
 * clock), safe under the stated clock bound. The durable epoch: a token is a value in the current epoch's
 * range (epoch x 2^24 + n in the code; here ranges of two values), counted up in Redis; when Redis has lost
 * the counter, or the range is used up, the next range comes from a durable sequence that never loses a
 * value, so no clock is involved. The code takes the epoch only after Redis recorded a claim and installs it
 * only while that claim stands, so take-and-install is one step with respect to a loss, as here
 * (DurableEpochTest covers the claim itself). Not covered by either mode: a failover to a replica that holds
 * an older copy of the counter; the epoch mode's checks assume failover to a replica with the current copy
 * or none (a lagging copy is its own negative control).
 *
 * Also in it: the HTTP fence's inbound token bound in the epoch mode (the durable sequence's last range), the
 * epoch of each token (a ghost), real time with each holder's own deadline, the provider that reads the
 * master's clock with every reply and holds a grant back after a forward jump, and grants that count only once
 * a replica acknowledged them.
 *
 * The features below are switched off one at a time by the negative controls.
 */
module fencing

open util/ordering[T] as ord

/** Instants and token values, in order (the Redis clock reads microseconds; a token is one). */
sig T {}

abstract sig Feature {}
/** token = max(counter + 1, Redis clock): without it, token = counter + 1. */
one sig Floor extends Feature {}
/** the row CAS: without it, the UPDATE is the application's own, unconditional. */
one sig RowFence extends Feature {}
/** the SQL high-water claim: without it, the transactions that should claim write without claiming. */
one sig SqlMarkFence extends Feature {}
/** the HTTP high-water mark: without it, the filter admits every token. */
one sig HttpFence extends Feature {}
/** the stated clock assumption: the clock that mints a token reads at least the last minting reading
    plus the time passed since (a step back never undoes more than the time passed). */
one sig ClockBound extends Feature {}
/** tokens from the durable epoch instead of the clock floor */
one sig Epoch extends Feature {}
/** after a loss, a new epoch from the durable sequence: without it, the last epoch again */
one sig EpochIncrement extends Feature {}
/** failover only to a replica with the current copy of the counter, or none (the epoch mode's assumption) */
one sig FailoverCurrent extends Feature {}
/** the inbound token bound from the durable sequence (TokenBound.epochs): without it, the clock floor's
    bound (TokenBound.clockFloor, the fence's clock; here the master's, with no skew allowance) */
one sig EpochBound extends Feature {}
/** the counter stays within its epoch's range (a used-up range takes a new epoch): without it, it counts on
    past the range's end, into the next epoch's values */
one sig RangeBound extends Feature {}
/** the jump-aware grant: after a forward jump of the master's clock seen by the provider, a grant is held
    (renewed, not handed out) while an earlier holder may still believe it holds: without it, handed out at once */
one sig JumpHold extends Feature {}
/** the hold ends min(sighting + lease + lock-delay, grant + jump): without it, sighting + min(jump, lease +
    lock-delay), too short when the jump was seen well before the lock ran out (by a refused acquire) */
one sig HoldFromGrant extends Feature {}
/** a grant counts only after a replica acknowledged it (WAIT): without it, it counts once the master has it */
one sig ReplicaAck extends Feature {}
/** the lock store may be moved to another durable sequence (tokenEpochSourceReplaces) */
one sig StoreMove extends Feature {}
/** the move advances the new sequence past the highest epoch installed (recorded in Redis beside the source's
    identity): without it, the new sequence goes on from its own last value */
one sig MoveAdvance extends Feature {}
/** the features in force in a command */
sig On in Feature {}

sig Client {}

/** A lease: the token and the client it was granted to, both fixed once granted; in the epoch mode the
    epoch of its token (a ghost: the end of the epoch's range). The holder's own deadline on real time
    (its local lease deadline, moved on by each renewal): it believes it holds the lease before then. */
sig Lease {
  var tok: lone T,
  var holder: lone Client,
  var ep: lone T,
  var due: lone T
}

abstract sig Guard {}
one sig Row, SqlMark, Http extends Guard {}

/** The servers' clocks, and two ghosts for the assumptions on minting. */
one sig Clock {
  var master: one T,
  var replica: one T,
  -- the last minting reading plus the time passed since: the least reading the assumption allows
  var least: lone T,
  -- set by a mint, cleared when time passes: one grant per microsecond at most
  var mintedNow: lone Clock,
  -- real time (the monotonic clocks of the clients), which only ticks
  var now: one T
}

/** The process that grants the resource's leases (one RedisLeaseProvider): the master's clock as it
    expects it to read now (its last reading plus the real time passed since), when (real time) it saw the
    last forward jump and by how much, the end of the hold of its last grant, and the grants it holds back. */
one sig Provider {
  var seen: lone T,
  var sighted: lone T,
  -- the jump was at least a lease long (2): the hold is capped by the lease anyway
  var far: lone Provider,
  var holdEnd: lone T,
  var pending: set Lease
}

/** What the master holds (counter, lock and its expiry on the master's clock) and the replica's copy. */
one sig Redis {
  var counter: lone T,
  var owner: lone Lease,
  var exp: lone T,
  var rcounter: lone T,
  var rowner: lone Lease,
  var rexp: lone T,
  -- epoch mode: the end of the current epoch's range, on the master and on the replica
  var limit: lone T,
  var rlimit: lone T
}

/** The durable sequence of the epoch mode (the application's database): the last range it handed out.
    It never loses a value. */
one sig Durable {
  var start: lone T,
  var top: lone T
}

/** The sequence a move takes the store to: the last range it handed out before (any, or none: a new one). */
one sig NewSource {
  otherTop: lone T
}

/** The resource: each enforcement point's mark, the highest token each admitted (ghost) and whether
    one admission was below it (ghost). */
one sig Res {
  var rowTok: lone T,
  var sqlMarkTok: lone T,
  var sqlMarkHeld: lone Lease,
  var hw: lone T,
  var hi: Guard -> lone T,
  var stale: set Guard
}

enum Ev { Start, Tick, Mint, Renew, Release, Flush, Replicate, Failover, ClockStep, Probe, HandOut,
          RowWrite, SqlMarkClaim, SqlMarkWrite, SqlMarkEnd, HttpWrite, Idle, Move }
enum Outcome { Admitted, Refused, StaleAdmitted, OutOfRange }

/** The event that led into the current state, for the trace. */
one sig Step {
  var ev: one Ev,
  var lease: lone Lease,
  var guard: lone Guard,
  var outcome: lone Outcome
}

/** The master's clock. */
fun rc: T { Clock.master }

/** The expiry of a lease taken or renewed now: lease length 2 (the end of the scope if beyond). */
fun expiry: T { some rc.next.next implies rc.next.next else ord/last }

fun granted: set Lease { tok.T }

/** The grants their clients have: minted and not held back by the provider. */
fun handedOut: set Lease { granted - Provider.pending }

/** The leases whose holders believe they hold them: before their own deadline. */
fun believing: set Lease { { l: Lease | some l.due and lt[Clock.now, l.due] } }

/** t + 1 and t + 2, or the end of the scope if beyond. */
fun plus1[t: T]: T { some t.next implies t.next else ord/last }
fun plus2[t: T]: T { plus1[plus1[t]] }

/** The holder's deadline of a lease granted or renewed now: lease length 2 on real time. */
fun deadline: T { plus2[Clock.now] }

/** The master's clock went beyond what the provider expected: a forward jump. */
pred jumped { some Provider.seen and gt[rc, Provider.seen] }

// ---------------------------------------------------------------- frames

pred keepClock { master' = master and replica' = replica and least' = least and mintedNow' = mintedNow and now' = now }
pred keepLeases { tok' = tok and holder' = holder and ep' = ep and due' = due }
pred keepDurable { start' = start and top' = top }
pred keepProvider { seen' = seen and sighted' = sighted and far' = far and holdEnd' = holdEnd and pending' = pending }
pred keepStore { counter' = counter and owner' = owner and exp' = exp and rcounter' = rcounter and rowner' = rowner and rexp' = rexp
  and limit' = limit and rlimit' = rlimit and keepDurable }
pred keepRedis { keepStore and keepProvider }
pred keepRes { rowTok' = rowTok and sqlMarkTok' = sqlMarkTok and sqlMarkHeld' = sqlMarkHeld and hw' = hw and hi' = hi and stale' = stale }
pred mark[e: Ev, l: lone Lease, g: lone Guard, o: lone Outcome] {
  Step.ev' = e and Step.lease' = l and Step.guard' = g and Step.outcome' = o
}

// ---------------------------------------------------------------- start

pred init {
  no Clock.least and no Clock.mintedNow
  no tok and no holder and no ep and no due
  no Provider.seen and no Provider.sighted and no Provider.far and no Provider.holdEnd and no Provider.pending
  no Redis.counter and no Redis.owner and no Redis.exp and no Redis.rcounter and no Redis.rowner and no Redis.rexp
  no Redis.limit and no Redis.rlimit and no Durable.start and no Durable.top
  no Res.rowTok and no Res.sqlMarkTok and no Res.sqlMarkHeld and no Res.hw and no Res.hi and no Res.stale
  Step.ev = Start and no Step.lease and no Step.guard and no Step.outcome
}

// ---------------------------------------------------------------- time and clocks

/** Time passes: both clocks and real time advance. */
pred tick {
  -- within the scope: no value runs past the last one (as integers must not overflow)
  some Clock.master.next and some Clock.replica.next and (no Clock.least or some Clock.least.next)
  some Clock.now.next and (no Provider.seen or some Provider.seen.next)
  Clock.master' = Clock.master.next and Clock.replica' = Clock.replica.next
  Clock.least' = Clock.least.next and Clock.now' = Clock.now.next
  no Clock.mintedNow'
  Provider.seen' = Provider.seen.next and sighted' = sighted and far' = far and holdEnd' = holdEnd and pending' = pending
  keepLeases and keepStore and keepRes
  mark[Tick, none, none, none]
}

/** A step of either server's clock, forward or back, by any amount. */
pred clockStep {
  least' = least and mintedNow' = mintedNow and now' = now
  (Clock.master' != Clock.master and replica' = replica) or (Clock.replica' != Clock.replica and master' = master)
  keepLeases and keepRedis and keepRes
  mark[ClockStep, none, none, none]
}

// ---------------------------------------------------------------- Redis: the lock and the token

/** One atomic script: the lock is free (never taken, released, or expired on the master's clock),
    the token is minted and the lock taken. */
pred mint[c: Client, l: Lease] {
  no l.tok
  no Redis.owner or gte[rc, Redis.exp]
  -- a lock round trip takes more than a microsecond (the clock floor's assumption; epoch tokens need none)
  Epoch not in On implies no Clock.mintedNow
  -- the clock assumption, when in force
  ClockBound in On implies (no Clock.least or gte[rc, Clock.least])
  Epoch in On implies epochToken[l] else {
    let next = (some Redis.counter implies Redis.counter.next else ord/first),
        t = (Floor in On implies ord/max[rc + next] else next) {
      some next
      tok' = tok + l -> t
      Redis.counter' = t
    }
    limit' = limit and keepDurable and ep' = ep
  }
  holder' = holder + l -> c
  Redis.owner' = l and Redis.exp' = expiry
  -- with acknowledgements, the grant counts once a replica has everything the master has
  ReplicaAck in On
    implies (Redis.rcounter' = Redis.counter' and Redis.rowner' = l and Redis.rexp' = Redis.exp' and Redis.rlimit' = Redis.limit')
    else (rcounter' = rcounter and rowner' = rowner and rexp' = rexp and rlimit' = rlimit)
  master' = master and replica' = replica and now' = now
  Clock.least' = rc and Clock.mintedNow' = Clock
  observe
  -- held back while the hold after a jump lasts; otherwise the holder's deadline runs from now
  no Provider.sighted' implies no Provider.holdEnd'
    else let from = (HoldFromGrant in On implies Clock.now else Provider.sighted') |
      Provider.holdEnd' = ord/min[plus2[Provider.sighted'] + (some Provider.far' implies plus2[from] else plus1[from])]
  (JumpHold in On and lt[Clock.now, Provider.holdEnd'])
    implies (Provider.pending' = Provider.pending + l and due' = due)
    else (pending' = pending and due' = due ++ l -> deadline)
  keepRes
  mark[Mint, l, none, none]
}

/** A reply read by the provider carries the master's clock: a forward jump beyond the time passed is
    recorded (when and how far) for the grants that follow; the reading is the new expectation. The lease
    is 2 and the lock-delay 0 here. */
pred observe {
  Provider.seen' = rc
  (JumpHold in On and jumped)
    implies (Provider.sighted' = Clock.now and (gt[rc, Provider.seen.next] implies Provider.far' = Provider else no Provider.far'))
    else (sighted' = sighted and far' = far)
}

/** Any other call of the provider that reads the master's clock: an acquire that found the lock held, a
    call for another resource. */
pred probe {
  observe
  pending' = pending and holdEnd' = holdEnd
  keepClock and keepLeases and keepStore and keepRes
  mark[Probe, none, none, none]
}

/** A held grant is handed out once the hold is over, if it is still the lock's owner (the provider renews
    it meanwhile); its holder's deadline runs from now. */
pred handOut[l: Lease] {
  l in Provider.pending
  Redis.owner = l and lt[rc, Redis.exp]
  lte[Provider.holdEnd, Clock.now]
  Provider.pending' = Provider.pending - l
  due' = due ++ l -> deadline
  seen' = seen and sighted' = sighted and far' = far and holdEnd' = holdEnd
  tok' = tok and holder' = holder and ep' = ep
  keepClock and keepStore and keepRes
  mark[HandOut, l, none, none]
}

/** The epoch mode's token: the next value of the current range while it lasts; otherwise (the counter
    lost, or the range used up) the first value of a new range from the durable sequence. */
pred epochToken[l: Lease] {
  (some Redis.counter and some Redis.counter.next and some Redis.limit
     and (RangeBound in On implies lte[Redis.counter.next, Redis.limit]))
    implies {
      tok' = tok + l -> Redis.counter.next
      Redis.counter' = Redis.counter.next
      limit' = limit and keepDurable
      ep' = ep + l -> Redis.limit
    } else {
      let s = (EpochIncrement in On
                 implies (some Durable.top implies Durable.top.next else ord/first)
                 else (some Durable.start implies Durable.start else ord/first)) {
        some s
        tok' = tok + l -> s
        Redis.counter' = s
        Durable.start' = s
        Durable.top' = ((EpochIncrement not in On and some Durable.top) implies Durable.top
                        else (some s.next implies s.next else s))
        Redis.limit' = Durable.top'
        ep' = ep + l -> Durable.top'
      }
    }
}

/** Renewal: compare the holder, extend from the master's clock now. */
pred renew[l: Lease] {
  Redis.owner = l and lt[rc, Redis.exp]
  Redis.exp' = expiry
  counter' = counter and owner' = owner and rcounter' = rcounter and rowner' = rowner and rexp' = rexp
  limit' = limit and rlimit' = rlimit and keepDurable
  keepClock and keepRes
  tok' = tok and holder' = holder and ep' = ep
  observe and pending' = pending and holdEnd' = holdEnd
  -- the holder's deadline moves on; a renewal that sees a forward jump loses the lease at once (CLOCK_JUMP)
  l in Provider.pending implies due' = due
    else (jumped implies due' = due ++ l -> Clock.now else due' = due ++ l -> deadline)
  mark[Renew, l, none, none]
}

/** Release: compare-and-delete of the lock; the counter stays. */
pred release[l: Lease] {
  Redis.owner = l
  no Redis.owner' and no Redis.exp'
  counter' = counter and rcounter' = rcounter and rowner' = rowner and rexp' = rexp
  limit' = limit and rlimit' = rlimit and keepDurable and keepProvider
  -- the holder gave it back: it no longer believes it holds it
  tok' = tok and holder' = holder and ep' = ep
  (some l.due and lt[Clock.now, l.due]) implies due' = due ++ l -> Clock.now else due' = due
  keepClock and keepRes
  mark[Release, l, none, none]
}

/** The master loses its data: restart without persistence, FLUSHALL, or the keys' idle expiry. */
pred flush {
  no Redis.counter' and no Redis.owner' and no Redis.exp' and no Redis.limit'
  rcounter' = rcounter and rowner' = rowner and rexp' = rexp and rlimit' = rlimit and keepDurable and keepProvider
  keepClock and keepLeases and keepRes
  mark[Flush, none, none, none]
}

/** The replica catches up with the master (until then it lags). */
pred replicate {
  Redis.rcounter' = Redis.counter and Redis.rowner' = Redis.owner and Redis.rexp' = Redis.exp
  Redis.rlimit' = Redis.limit
  counter' = counter and owner' = owner and exp' = exp and limit' = limit and keepDurable and keepProvider
  keepClock and keepLeases and keepRes
  mark[Replicate, none, none, none]
}

/** Failover: the replica, with whatever it had, becomes the master, with its own clock; the old
    master rejoins as its replica. */
pred failover {
  FailoverCurrent in On implies (Redis.rcounter = Redis.counter or no Redis.rcounter)
  Redis.counter' = Redis.rcounter and Redis.owner' = Redis.rowner and Redis.exp' = Redis.rexp
  Redis.limit' = Redis.rlimit
  rcounter' = rcounter and rowner' = rowner and rexp' = rexp and rlimit' = rlimit and keepDurable
  Clock.master' = Clock.replica and Clock.replica' = Clock.master
  least' = least and mintedNow' = mintedNow and now' = now
  keepLeases and keepRes and keepProvider
  mark[Failover, none, none, none]
}

// ---------------------------------------------------------------- the resource

fun evOf[g: Guard]: Ev { (g = Row) implies RowWrite else ((g = Http) implies HttpWrite else SqlMarkWrite) }

/** Records an admission at g of token t, flagging it when t is below the highest admitted before. */
pred admit[g: Guard, l: Lease, t: T] {
  Res.hi' = Res.hi ++ g -> ord/max[Res.hi[g] + t]
  (some Res.hi[g] and lt[t, Res.hi[g]])
    implies (Res.stale' = Res.stale + g and mark[evOf[g], l, g, StaleAdmitted])
    else (stale' = stale and mark[evOf[g], l, g, Admitted])
}

pred refuse[g: Guard, l: Lease] {
  hi' = hi and stale' = stale and mark[evOf[g], l, g, Refused]
}

/** An UPDATE of the fenced row under lease l, as sent (possibly long after the lease ended). */
pred rowWrite[l: Lease] {
  l in handedOut
  (RowFence not in On or no Res.rowTok or lte[Res.rowTok, l.tok])
    implies (Res.rowTok' = l.tok and admit[Row, l, l.tok])
    else (rowTok' = rowTok and refuse[Row, l])
  sqlMarkTok' = sqlMarkTok and sqlMarkHeld' = sqlMarkHeld and hw' = hw
  keepClock and keepLeases and keepRedis
}

/** A transaction's high-water claim: waits while another transaction holds the high-water row; fails when the
    row holds a newer token; otherwise stores the token and holds the row until the transaction ends. */
pred sqlMarkClaim[l: Lease] {
  SqlMarkFence in On
  l in handedOut
  no Res.sqlMarkHeld
  (no Res.sqlMarkTok or lte[Res.sqlMarkTok, l.tok])
    implies (Res.sqlMarkTok' = l.tok and Res.sqlMarkHeld' = l and mark[SqlMarkClaim, l, SqlMark, Admitted])
    else (sqlMarkTok' = sqlMarkTok and sqlMarkHeld' = sqlMarkHeld and mark[SqlMarkClaim, l, SqlMark, Refused])
  rowTok' = rowTok and hw' = hw and hi' = hi and stale' = stale
  keepClock and keepLeases and keepRedis
}

/** A write that needs the claim (an INSERT, a write derived from a read): only inside a claimed
    transaction when the mark is in force; without it, any holder's transaction writes. */
pred sqlMarkWrite[l: Lease] {
  l in handedOut
  SqlMarkFence in On implies Res.sqlMarkHeld = l
  admit[SqlMark, l, l.tok]
  rowTok' = rowTok and sqlMarkTok' = sqlMarkTok and sqlMarkHeld' = sqlMarkHeld and hw' = hw
  keepClock and keepLeases and keepRedis
}

/** The claimed transaction commits or rolls back: the high-water row is free again. */
pred sqlMarkEnd {
  some Res.sqlMarkHeld
  no Res.sqlMarkHeld'
  rowTok' = rowTok and sqlMarkTok' = sqlMarkTok and hw' = hw and hi' = hi and stale' = stale
  keepClock and keepLeases and keepRedis
  mark[SqlMarkEnd, none, SqlMark, none]
}

/** A request with the lease's token reaches the filter (at any time, as often as it is retried). In the
    epoch mode the token bound comes first: a token above it is refused before the high-water mark. */
pred httpWrite[l: Lease] {
  l in handedOut
  (Epoch in On and gt[l.tok, boundCeiling])
    implies (hw' = hw and hi' = hi and stale' = stale and mark[HttpWrite, l, Http, OutOfRange])
  else (HttpFence not in On or no Res.hw or lte[Res.hw, l.tok])
    implies (Res.hw' = l.tok and admit[Http, l, l.tok])
    else (hw' = hw and refuse[Http, l])
  rowTok' = rowTok and sqlMarkTok' = sqlMarkTok and sqlMarkHeld' = sqlMarkHeld
  keepClock and keepLeases and keepRedis
}

/** The inbound bound's ceiling: the last value of the last range the durable sequence handed out (the
    fence reads the sequence again before refusing), or, without it, the clock floor's (the fence's clock). */
fun boundCeiling: T { EpochBound in On implies Durable.top else rc }

/**
 * The store moved to another durable sequence: from now on epochs come from it. The code advances it past the
 * highest epoch recorded as installed, then swaps the record only if identity and that epoch are unchanged, and
 * an old client raises that epoch before it installs one, only while the record names its source: so every epoch
 * installed is covered by the advance or refused, and the move is one step here (EpochSourceMoveTest).
 */
pred move {
  Epoch in On and StoreMove in On
  Durable.top' = (MoveAdvance in On implies ord/max[Durable.top + NewSource.otherTop] else NewSource.otherTop)
  start' = start
  counter' = counter and owner' = owner and exp' = exp and rcounter' = rcounter and rowner' = rowner and rexp' = rexp
  limit' = limit and rlimit' = rlimit
  keepClock and keepLeases and keepProvider and keepRes
  mark[Move, none, none, none]
}

pred idle {
  keepClock and keepLeases and keepRedis and keepRes
  mark[Idle, none, none, none]
}

/**
 * The system whose writes reach the enforcement points gs. The points share no state (each event
 * keeps the others' marks), so the runs of the whole system, seen at one point, are runs of the system
 * with only that point's writes: each property is checked at one point at a time, which keeps the
 * check small, and the minting with no writes at all.
 */
pred system[gs: set Guard] {
  init
  always (
    tick or clockStep or flush or replicate or failover or idle or probe or move
    or (some c: Client, l: Lease | mint[c, l])
    or (some l: Lease | renew[l] or release[l] or handOut[l])
    or (Row in gs and some l: Lease | rowWrite[l])
    or (SqlMark in gs and (sqlMarkEnd or some l: Lease | sqlMarkClaim[l] or sqlMarkWrite[l]))
    or (Http in gs and some l: Lease | httpWrite[l]))
}

// ---------------------------------------------------------------- properties

/** No write with a token below the highest token admitted before at that enforcement point is admitted. */
pred noStaleAdmitted { always no Res.stale }

/** A token is never granted twice. */
pred noTokenTwice { always all disj a, b: granted | a.tok != b.tok }

/** Epoch tokens of every holder are within the inbound bound: none is refused as out of range. */
pred withinBound { always Step.outcome != OutOfRange }

/** Every token of an older epoch is below every token of a newer one. */
pred olderEpochBelow { always all a, b: granted | lt[a.ep, b.ep] implies lt[a.tok, b.tok] }

/** At most one holder believes it holds the lease at any time. */
pred exclusive { always lone believing }

/** No data loss and no failover (the only other ways a lock ends early), and every lock's expiry within
    the scope (one cut short at the last value would end it early). */
pred noLoss { always (Step.ev not in Flush + Failover and (Step.ev in Mint + Renew implies some rc.next.next)) }

/** The clock-floor mode's features and assumptions, and the epoch mode's (no clock assumption at all). */
fun epochOnly: set Feature { Epoch + EpochIncrement + FailoverCurrent + EpochBound + RangeBound + StoreMove + MoveAdvance }
fun clockMode: set Feature { Feature - epochOnly - ReplicaAck }
fun epochMode: set Feature { Feature - Floor - ClockBound - ReplicaAck - StoreMove }
/** The epoch mode with replica acknowledgements: failover to any replica, however far behind. */
fun ackedEpochMode: set Feature { epochMode - FailoverCurrent + ReplicaAck }

/** The protocol as built, tokens on the clock floor: every feature and assumption in force. */
pred full { On = clockMode }

/** The protocol as built, tokens from the durable epoch: no clock assumption, failover as stated. */
pred epoch { On = epochMode }

// ---------------------------------------------------------------- commands (one scope for all)

check NoTokenTwice { (system[none] and full) implies noTokenTwice } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
check NoStaleAdmittedAtRow { (system[Row] and full) implies noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
check NoStaleAdmittedAtSqlMark { (system[SqlMark] and full) implies noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
check NoStaleAdmittedAtHttp { (system[Http] and full) implies noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0

/** Non-vacuity: a forward step of the master's clock ends a live lease at once, a second holder is
    granted by a provider that cannot tell (one that never read the server's clock before the step), and
    the first holder's late write is refused at the row. */
run OverlapRefused { system[Row] and On = clockMode - JumpHold
  eventually (some Redis.owner and lt[rc, Redis.exp] and after (Step.ev = ClockStep and gte[rc, Redis.exp])
    and eventually (Step.ev = RowWrite and Step.outcome = Refused)) }
  for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1

check NoTokenTwiceEpoch { (system[none] and epoch) implies noTokenTwice } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
check NoStaleAdmittedAtRowEpoch { (system[Row] and epoch) implies noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
check NoStaleAdmittedAtSqlMarkEpoch { (system[SqlMark] and epoch) implies noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
check NoStaleAdmittedAtHttpEpoch { (system[Http] and epoch) implies noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0

// negative controls: each must yield a counterexample
run NoFloorTokenTwice { system[none] and On = clockMode - Floor and not noTokenTwice } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run NoRowFenceStale { system[Row] and On = clockMode - RowFence and not noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run NoSqlMarkFenceStale { system[SqlMark] and On = clockMode - SqlMarkFence and not noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run NoHttpFenceStale { system[Http] and On = clockMode - HttpFence and not noStaleAdmitted } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run ClockBoundBrokenTokenTwice { system[none] and On = clockMode - ClockBound and not noTokenTwice } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run EpochNotIncreasedTokenTwice { system[none] and On = epochMode - EpochIncrement and not noTokenTwice } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run EpochLaggingReplicaTokenTwice { system[none] and On = epochMode - FailoverCurrent and not noTokenTwice } for 2 Client, 3 Lease, 7 T, 10..10 steps expect 1

// the inbound bound and the order of epochs (durable-epoch mode)
check EpochHoldersWithinBound { (system[Http] and epoch) implies withinBound } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
check OlderEpochBelowNewer { (system[none] and epoch) implies olderEpochBelow } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
run ClockFloorBoundRefusesEpochHolder { system[Http] and On = epochMode - EpochBound and not withinBound } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run UnboundedRangeOlderEpochAbove { system[none] and On = epochMode - RangeBound and not olderEpochBelow } for 2 Client, 4 Lease, 7 T, 7..7 steps expect 1

// the jump-aware grant: with no data loss and no failover, one holder at a time
check ExclusiveAfterJump { (system[none] and full and noLoss) implies exclusive } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
run HeldGrantHandedOut { system[none] and full and eventually (Step.ev = HandOut) } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run NoJumpHoldOverlap { system[none] and On = clockMode - JumpHold and noLoss and not exclusive } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
run HoldFromSightingOverlap { system[none] and On = clockMode - HoldFromGrant and noLoss and not exclusive } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1

// replica-acknowledged grants: failover to the replica, however far behind, forgets no token
check NoTokenTwiceEpochAcked { (system[none] and On = ackedEpochMode) implies noTokenTwice } for 2 Client, 3 Lease, 7 T, 10..10 steps expect 0

// moving the lock store to another durable sequence: safe only with the advance past the highest installed epoch
check NoTokenTwiceEpochMove { (system[none] and On = epochMode + StoreMove) implies noTokenTwice } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 0
run MoveWithoutAdvanceTokenTwice { system[none] and On = epochMode + StoreMove - MoveAdvance and not noTokenTwice } for 2 Client, 3 Lease, 7 T, 7..7 steps expect 1
