module lockout

/*
 * Issue 38: a token that no lock store granted for the resource (a leaked signing key, a broken client) must not
 * lock the resource's holders out. One resource: the lock store's highest token granted for it, whether the store
 * has lost that counter, and the resource's high-water mark (HTTP or messages). Any client presents any token at any
 * time; tokens up to the global bound's ceiling (the highest epoch's last token, here three above the counter) pass
 * the global bound. After a loss the next grant takes a new epoch, above every token of the ceiling before it.
 *
 * Features, each on when its signature has an atom:
 *   PerResource: a token above what the store granted for its resource is refused (IssuedTokenBound), unless
 *                the store has lost the counter and cannot tell;
 *   Healing:     on a refusal, a mark above every granted token is set back to the highest granted (MarkHealing).
 */

lone sig PerResource {}
lone sig Healing {}

one sig S {
  var granted: one Int,
  var hw: lone Int,
  -- ghost: the highest token admitted that the store had granted when it was admitted
  var genuine: lone Int
}
var lone sig Lost {}

fun ceiling: Int { S.granted.plus[3] }

pred unminted { some Healing and no Lost and some S.hw and S.hw > S.granted }

pred admits[t: Int] {
  t <= ceiling
  (some PerResource and no Lost) implies t <= S.granted
  (no S.hw or S.hw <= t) or (unminted and S.granted <= t)
}

pred present[t: Int] {
  t > 0
  S.granted' = S.granted
  Lost' = Lost
  admits[t] implies {
    S.hw' = t
    S.genuine' = ((t <= S.granted and (no S.genuine or S.genuine < t)) implies t else S.genuine)
  } else {
    S.hw' = (unminted implies S.granted else S.hw)
    S.genuine' = S.genuine
  }
}

pred grant {
  S.granted' = (some Lost implies S.granted.plus[4] else S.granted.plus[1])
  no Lost'
  S.hw' = S.hw
  S.genuine' = S.genuine
}

pred lose {
  no Lost
  some Lost'
  S.granted' = S.granted
  S.hw' = S.hw
  S.genuine' = S.genuine
}

fact {
  S.granted = 1 and no S.hw and no S.genuine and no Lost
  always (grant or lose or some t: Int | present[t])
}

/* The current holder (the latest grant, the counter known) is admitted whenever it presents its token. */
pred noLockOut { always all t: Int | (present[t] and t = S.granted and no Lost) implies admits[t] }

/* Fencing still holds: no token below a granted token admitted before is admitted. */
pred noStaleAdmitted { always all t: Int | (present[t] and admits[t] and some S.genuine) implies t >= S.genuine }

check NoLockOut { (some PerResource and some Healing) implies noLockOut } for 5 Int, 1..6 steps
check NoLockOutWithoutHealing { (some PerResource and no Healing) implies noLockOut } for 5 Int, 1..6 steps
check NoStaleAdmittedBounded { (some PerResource and some Healing) implies noStaleAdmitted } for 5 Int, 1..6 steps
check NoStaleAdmittedHealingOnly { (no PerResource and some Healing) implies noStaleAdmitted } for 5 Int, 1..6 steps

/* Control, today's rule (the global ceiling alone): the checker finds the lock-out. */
check LockOutUnderGlobalCeiling { (no PerResource and no Healing) implies noLockOut } for 5 Int, 1..6 steps

/* Non-vacuity: a token above the counter is admitted while the store cannot tell, and the next holder still is. */
run ForgedWhileLostThenHolderAdmitted {
  some PerResource and some Healing
  eventually (some Lost and some t: Int | present[t] and admits[t] and t > S.granted
    and eventually (grant and after (some u: Int | present[u] and u = S.granted and admits[u])))
} for 5 Int, 1..6 steps
