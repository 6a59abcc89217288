module marks

/*
 * When a resource's mark may be dropped. One resource: the lock store's highest token granted for it, the floor
 * (tokens below it are refused at the resource by the store's own bound: every lease that carried them has expired
 * and the bound says so), and the resource's high-water mark. A holder paused past its lease keeps its token and may
 * present any token the store granted, at any time: that is what the mark is for.
 *
 * Features, each on when its signature has an atom:
 *   FloorBound:  the resource refuses a token below the floor;
 *   DropAnyTime: the control; a mark is dropped whenever (an idle time, a table kept small), not only below the floor.
 * Without DropAnyTime a mark is dropped only when it is below the floor and the floor is enforced.
 */

lone sig FloorBound {}
lone sig DropAnyTime {}

one sig S {
  var granted: one Int,
  var floor: one Int,
  var hw: lone Int,
  -- ghost: the highest token admitted so far (kept when the mark is dropped)
  var admitted: lone Int
}

pred admits[t: Int] {
  t <= S.granted
  some FloorBound implies t >= S.floor
  no S.hw or S.hw <= t
}

pred present[t: Int] {
  t > 0
  S.granted' = S.granted
  S.floor' = S.floor
  admits[t] implies {
    S.hw' = t
    S.admitted' = ((no S.admitted or S.admitted < t) implies t else S.admitted)
  } else {
    S.hw' = S.hw
    S.admitted' = S.admitted
  }
}

pred grant {
  S.granted' = S.granted.plus[1]
  S.floor' = S.floor
  S.hw' = S.hw
  S.admitted' = S.admitted
}

/* Leases expire: the floor rises, never above the latest grant. */
pred expire {
  S.floor < S.granted
  S.floor' > S.floor and S.floor' <= S.granted
  S.granted' = S.granted
  S.hw' = S.hw
  S.admitted' = S.admitted
}

pred drop {
  some S.hw
  no DropAnyTime implies (some FloorBound and S.hw < S.floor)
  no S.hw'
  S.granted' = S.granted
  S.floor' = S.floor
  S.admitted' = S.admitted
}

fact {
  S.granted = 1 and S.floor = 1 and no S.hw and no S.admitted
  always (grant or expire or drop or some t: Int | present[t])
}

/* Fencing holds: no token below one admitted before is admitted. */
pred noStaleAdmitted { always all t: Int | (present[t] and admits[t] and some S.admitted) implies t >= S.admitted }

/* A mark below the floor is dropped safely: every token it would refuse, the floor refuses. */
check DropBelowFloor { (some FloorBound and no DropAnyTime) implies noStaleAdmitted } for 5 Int, 1..7 steps

/* Control: a mark dropped before the floor passed it admits a paused holder's stale write. */
check DropEarlyAdmitsStale { (some FloorBound and some DropAnyTime) implies noStaleAdmitted } for 5 Int, 1..7 steps

/* Non-vacuity: a mark is dropped under the rule, and a holder is admitted after it. */
run DroppedThenAdmitted {
  some FloorBound and no DropAnyTime
  eventually (drop and after (some t: Int | present[t] and admits[t]))
} for 5 Int, 1..7 steps
