//! Every branch of the payment planner, on an in-memory book (no database): the book answers
//! the planner's questions and carries out its writes the way a backend does.

use std::collections::{BTreeMap, HashMap};

use chrono::DateTime;

use super::*;
use crate::MAX_BALANCE;

fn account(id: i64) -> AccountId {
    AccountId::new(id).expect("account ids are positive")
}

fn alice() -> AccountId {
    account(1)
}

fn bob() -> AccountId {
    account(2)
}

/// Orders, balances, ledger keys, activity and applied events, as a backend stores them.
#[derive(Default)]
struct Book {
    events: HashMap<String, String>,
    topups: BTreeMap<i64, Topup>,
    balances: HashMap<AccountId, u64>,
    ledger: HashMap<String, (AccountId, i64)>,
    activity: Vec<(AccountId, &'static str, String)>,
}

impl PaymentFacts for Book {
    type Error = DeveloperError;

    fn event_seen(&mut self, event_id: &str) -> Result<bool, DeveloperError> {
        Ok(self.events.contains_key(event_id))
    }

    fn topup_by_reference(&mut self, reference: &str) -> Result<Option<i64>, DeveloperError> {
        Ok(self
            .topups
            .values()
            .find(|t| t.reference.as_deref() == Some(reference))
            .map(|t| t.id))
    }

    fn topup(&mut self, id: i64) -> Result<Option<Topup>, DeveloperError> {
        Ok(self.topups.get(&id).cloned())
    }

    fn paid_topup_by_payment(&mut self, payment: &str) -> Result<Option<i64>, DeveloperError> {
        Ok(self
            .topups
            .values()
            .find(|t| t.status == TopupStatus::Paid && t.payment_intent.as_deref() == Some(payment))
            .map(|t| t.id))
    }

    fn balance(&mut self, account: AccountId) -> Result<Option<u64>, DeveloperError> {
        Ok(self.balances.get(&account).copied())
    }

    fn ledger_owner(&mut self, key: &str) -> Result<Option<AccountId>, DeveloperError> {
        Ok(self.ledger.get(key).map(|(owner, _)| *owner))
    }
}

impl Book {
    fn with_accounts() -> Self {
        let mut book = Self::default();
        book.balances.insert(alice(), 0);
        book.balances.insert(bob(), 0);
        book
    }

    /// An order of `credits` for `cents` EUR by `account`, checkout `cs_<id>` started.
    fn order(&mut self, id: i64, account: AccountId, credits: u64, cents: u64) {
        self.topups.insert(
            id,
            Topup {
                id,
                account_id: account,
                credits,
                amount_cents: cents,
                currency: "eur".to_owned(),
                provider: "test".to_owned(),
                reference: Some(format!("cs_{id}")),
                status: TopupStatus::Pending,
                payment_intent: None,
                refunded_cents: 0,
                refunded_credits: 0,
                created_at: DateTime::UNIX_EPOCH,
                updated_at: DateTime::UNIX_EPOCH,
            },
        );
    }

    /// Plans `event` and carries out the plan; returns the plan.
    fn apply(&mut self, event: &PaymentEvent) -> Plan {
        let plan = plan_event(self, event).expect("the event plans");
        self.carry_out(&plan.writes);
        plan
    }

    fn carry_out(&mut self, writes: &[Write]) {
        for write in writes {
            match write {
                Write::SetStatus {
                    topup_id,
                    status,
                    payment_intent,
                    reference,
                } => {
                    let topup = self.topups.get_mut(topup_id).expect("planned order");
                    topup.status = *status;
                    if payment_intent.is_some() {
                        topup.payment_intent.clone_from(payment_intent);
                    }
                    topup.reference.get_or_insert_with(|| reference.clone());
                }
                Write::Balance(change) => {
                    let balance = self.balances.get_mut(&change.account).expect("account");
                    *balance = balance
                        .checked_add_signed(change.amount)
                        .expect("no overdraft");
                    assert_eq!(*balance, change.balance_after, "the planned balance");
                    let fresh = self
                        .ledger
                        .insert(change.key.clone(), (change.account, change.amount));
                    assert!(fresh.is_none(), "ledger keys are unique");
                }
                Write::RecordRefund {
                    topup_id,
                    refunded_cents,
                    credits_taken,
                } => {
                    let topup = self.topups.get_mut(topup_id).expect("planned order");
                    topup.refunded_cents = *refunded_cents;
                    topup.refunded_credits += credits_taken;
                }
                Write::Activity {
                    account,
                    kind,
                    detail,
                } => self.activity.push((*account, kind, detail.clone())),
                Write::RecordEvent {
                    event_id, outcome, ..
                } => {
                    let fresh = self.events.insert(event_id.clone(), outcome.clone());
                    assert!(fresh.is_none(), "an event is recorded once");
                }
            }
        }
    }

    fn balance_of(&self, account: AccountId) -> u64 {
        self.balances[&account]
    }
}

fn checkout(id: i64, cents: u64, currency: &str, paid: bool) -> CheckoutFacts {
    CheckoutFacts {
        reference: format!("cs_{id}"),
        topup_id: Some(id),
        amount: cents,
        currency: currency.to_owned(),
        paid,
        payment_intent: paid.then(|| format!("pi_{id}")),
    }
}

fn event(id: &str, kind: PaymentEventKind) -> PaymentEvent {
    PaymentEvent {
        event_id: id.to_owned(),
        kind,
    }
}

fn paid(event_id: &str, topup: i64, cents: u64) -> PaymentEvent {
    event(
        event_id,
        PaymentEventKind::CheckoutCompleted(checkout(topup, cents, "eur", true)),
    )
}

fn refund(event_id: &str, topup: i64, cumulative_cents: u64, currency: &str) -> PaymentEvent {
    event(
        event_id,
        PaymentEventKind::Refunded {
            payment_intent: format!("pi_{topup}"),
            amount_refunded: cumulative_cents,
            currency: currency.to_owned(),
        },
    )
}

#[test]
fn a_paid_checkout_credits_once_and_records_the_event() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    let plan = book.apply(&paid("evt_1", 7, 1000));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Credited {
            topup_id: 7,
            credits: 500,
            balance: 500
        }
    );
    assert_eq!(book.balance_of(alice()), 500);
    assert_eq!(book.topups[&7].status, TopupStatus::Paid);
    assert_eq!(book.topups[&7].payment_intent.as_deref(), Some("pi_7"));
    assert_eq!(book.ledger["topup:7"], (alice(), 500));
    assert_eq!(book.events["evt_1"], "credited 500");
    assert_eq!(
        book.activity,
        [(
            alice(),
            "topup_paid",
            "top-up 7: 500 credits added".to_owned()
        )]
    );
}

#[test]
fn a_duplicate_event_writes_nothing() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.apply(&paid("evt_1", 7, 1000));
    let again = book.apply(&paid("evt_1", 7, 1000));
    assert_eq!(again.outcome, PaymentOutcome::Duplicate);
    assert!(again.writes.is_empty());
    assert_eq!(book.balance_of(alice()), 500);
}

#[test]
fn paid_is_final_for_later_events_of_any_kind() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.apply(&paid("evt_1", 7, 1000));
    for (id, kind) in [
        (
            "evt_2",
            PaymentEventKind::PaymentSucceeded(checkout(7, 1000, "eur", true)),
        ),
        (
            "evt_3",
            PaymentEventKind::PaymentFailed(checkout(7, 1000, "eur", false)),
        ),
        (
            "evt_4",
            PaymentEventKind::CheckoutExpired(checkout(7, 1000, "eur", false)),
        ),
    ] {
        let plan = book.apply(&event(id, kind));
        assert_eq!(
            plan.outcome,
            PaymentOutcome::Ignored("top-up 7 is already paid".to_owned())
        );
        assert_eq!(
            plan.writes,
            [Write::RecordEvent {
                event_id: id.to_owned(),
                topup_id: None,
                outcome: "ignored: top-up 7 is already paid".to_owned()
            }]
        );
    }
    assert_eq!(book.balance_of(alice()), 500);
    assert_eq!(book.topups[&7].status, TopupStatus::Paid);
}

#[test]
fn an_unpaid_checkout_waits_then_its_async_payment_credits() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    let waiting = book.apply(&event(
        "evt_1",
        PaymentEventKind::CheckoutCompleted(checkout(7, 1000, "eur", false)),
    ));
    assert_eq!(
        waiting.outcome,
        PaymentOutcome::Updated {
            topup_id: 7,
            status: TopupStatus::Pending
        }
    );
    assert_eq!(book.balance_of(alice()), 0);
    let succeeded = book.apply(&event(
        "evt_2",
        PaymentEventKind::PaymentSucceeded(checkout(7, 1000, "EUR", true)),
    ));
    assert!(matches!(
        succeeded.outcome,
        PaymentOutcome::Credited { credits: 500, .. }
    ));
    assert_eq!(book.balance_of(alice()), 500);
}

#[test]
fn an_unpaid_completion_after_a_failure_is_ignored_but_a_payment_still_credits() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    let failed = book.apply(&event(
        "evt_1",
        PaymentEventKind::PaymentFailed(checkout(7, 1000, "eur", false)),
    ));
    assert_eq!(
        failed.outcome,
        PaymentOutcome::Updated {
            topup_id: 7,
            status: TopupStatus::Failed
        }
    );
    let late = book.apply(&event(
        "evt_2",
        PaymentEventKind::CheckoutCompleted(checkout(7, 1000, "eur", false)),
    ));
    assert_eq!(
        late.outcome,
        PaymentOutcome::Ignored("top-up 7 is already failed".to_owned())
    );
    assert_eq!(book.topups[&7].status, TopupStatus::Failed);
    let retried = book.apply(&paid("evt_3", 7, 1000));
    assert!(matches!(retried.outcome, PaymentOutcome::Credited { .. }));
}

#[test]
fn an_amount_or_currency_mismatch_is_rejected_and_told_to_the_owner() {
    for (cents, currency) in [(999, "eur"), (1000, "usd")] {
        let mut book = Book::with_accounts();
        book.order(7, alice(), 500, 1000);
        let plan = book.apply(&event(
            "evt_1",
            PaymentEventKind::CheckoutCompleted(checkout(7, cents, currency, true)),
        ));
        let why = format!("top-up 7 costs 1000 eur, the payment is {cents} {currency}");
        assert_eq!(plan.outcome, PaymentOutcome::Rejected(why.clone()));
        assert_eq!(book.balance_of(alice()), 0);
        assert_eq!(book.topups[&7].status, TopupStatus::Pending);
        assert_eq!(book.events["evt_1"], format!("rejected: {why}"));
        assert_eq!(book.activity.len(), 1);
        assert_eq!(book.activity[0].0, alice());
        assert_eq!(book.activity[0].1, "topup_rejected");
    }
}

#[test]
fn a_checkout_must_name_its_own_order() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.order(8, bob(), 500, 1000);
    // Checkout cs_7 is top-up 7's; an event that names top-up 8 with it is refused.
    let mut crossed = checkout(7, 1000, "eur", true);
    crossed.topup_id = Some(8);
    let plan = book.apply(&event(
        "evt_1",
        PaymentEventKind::CheckoutCompleted(crossed),
    ));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Rejected("checkout cs_7 belongs to top-up 7, the event names 8".to_owned())
    );
    // An unknown checkout id naming top-up 8, which already has checkout cs_8.
    let mut foreign = checkout(8, 1000, "eur", true);
    foreign.reference = "cs_other".to_owned();
    let plan = book.apply(&event(
        "evt_2",
        PaymentEventKind::CheckoutCompleted(foreign),
    ));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Rejected("top-up 8 has checkout cs_8, the event names cs_other".to_owned())
    );
    // Neither known: rejected, nobody's activity.
    let mut unknown = checkout(9, 1000, "eur", true);
    unknown.topup_id = None;
    let plan = book.apply(&event(
        "evt_3",
        PaymentEventKind::CheckoutCompleted(unknown),
    ));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Rejected("no top-up for checkout cs_9".to_owned())
    );
    let mut missing = checkout(9, 1000, "eur", true);
    missing.reference = "cs_none".to_owned();
    let plan = book.apply(&event(
        "evt_4",
        PaymentEventKind::CheckoutCompleted(missing),
    ));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Rejected("no top-up 9".to_owned())
    );
    assert_eq!(book.balance_of(alice()) + book.balance_of(bob()), 0);
    assert_eq!(
        book.activity
            .iter()
            .map(|(who, ..)| *who)
            .collect::<Vec<_>>(),
        [bob(), bob()],
        "the named order's owner hears of it"
    );
}

#[test]
fn an_order_without_a_checkout_id_gets_the_events() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.topups.get_mut(&7).expect("order").reference = None;
    book.apply(&paid("evt_1", 7, 1000));
    assert_eq!(book.topups[&7].reference.as_deref(), Some("cs_7"));
    assert_eq!(book.balance_of(alice()), 500);
}

#[test]
fn a_refund_before_its_payment_is_not_recorded_and_applies_after_it() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    let early = book.apply(&refund("evt_r", 7, 1000, "eur"));
    assert_eq!(
        early.outcome,
        PaymentOutcome::NotYet("no paid top-up for payment pi_7 yet".to_owned())
    );
    assert!(
        early.writes.is_empty(),
        "not even the event: the next delivery applies"
    );
    book.apply(&paid("evt_1", 7, 1000));
    let redelivered = book.apply(&refund("evt_r", 7, 1000, "eur"));
    assert_eq!(
        redelivered.outcome,
        PaymentOutcome::Refunded {
            topup_id: 7,
            credits: 500
        }
    );
    assert_eq!(book.balance_of(alice()), 0);
    assert_eq!(book.ledger["refund:evt_r"], (alice(), -500));
}

#[test]
fn refunds_are_cumulative_and_a_smaller_total_later_changes_nothing() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.apply(&paid("evt_1", 7, 1000));
    let half = book.apply(&refund("evt_r1", 7, 500, "eur"));
    assert_eq!(
        half.outcome,
        PaymentOutcome::Refunded {
            topup_id: 7,
            credits: 250
        }
    );
    // The provider told a total of 300 after 500: already applied.
    let older = book.apply(&refund("evt_r2", 7, 300, "eur"));
    assert_eq!(
        older.outcome,
        PaymentOutcome::Ignored("top-up 7: refund already applied".to_owned())
    );
    // The whole price refunded: the rest of the credits, not the whole pack again; more than
    // the price counts as the price.
    let whole = book.apply(&refund("evt_r3", 7, 5000, "EUR"));
    assert_eq!(
        whole.outcome,
        PaymentOutcome::Refunded {
            topup_id: 7,
            credits: 250
        }
    );
    assert_eq!(book.balance_of(alice()), 0);
    assert_eq!(book.topups[&7].refunded_cents, 1000);
    assert_eq!(book.topups[&7].refunded_credits, 500);
}

#[test]
fn a_refund_takes_back_at_most_the_balance() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.apply(&paid("evt_1", 7, 1000));
    *book.balances.get_mut(&alice()).expect("alice") = 120; // 380 credits spent
    let plan = book.apply(&refund("evt_r", 7, 1000, "eur"));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Refunded {
            topup_id: 7,
            credits: 120
        }
    );
    assert_eq!(book.balance_of(alice()), 0);
    // Spent to nothing: the refund is recorded with no ledger row.
    book.order(8, bob(), 100, 200);
    book.apply(&paid("evt_2", 8, 200));
    *book.balances.get_mut(&bob()).expect("bob") = 0;
    let plan = book.apply(&refund("evt_r2", 8, 200, "eur"));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Refunded {
            topup_id: 8,
            credits: 0
        }
    );
    assert!(!plan.writes.iter().any(|w| matches!(w, Write::Balance(_))));
    assert_eq!(book.topups[&8].refunded_cents, 200);
}

#[test]
fn a_refund_of_a_free_order_takes_back_its_credits() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 50, 0);
    book.apply(&paid("evt_1", 7, 0));
    // Nothing can be refunded of a price of 0: the refund is already applied.
    let plan = book.apply(&refund("evt_r", 7, 10, "eur"));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Ignored("top-up 7: refund already applied".to_owned())
    );
    assert_eq!(book.balance_of(alice()), 50);
}

#[test]
fn a_refund_in_another_currency_is_rejected() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.apply(&paid("evt_1", 7, 1000));
    let plan = book.apply(&refund("evt_r", 7, 1000, "usd"));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Rejected("top-up 7 was paid in eur, the refund is in usd".to_owned())
    );
    assert_eq!(book.balance_of(alice()), 500);
    assert_eq!(
        book.events["evt_r"],
        "rejected: top-up 7 was paid in eur, the refund is in usd"
    );
    assert_eq!(
        book.activity.len(),
        1,
        "only the payment's line: a refund names no order"
    );
}

#[test]
fn a_payment_whose_ledger_key_was_used_is_a_corrupt_store() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.ledger.insert("topup:7".to_owned(), (alice(), 500));
    let err = plan_event(&mut book, &paid("evt_1", 7, 1000)).expect_err("refused");
    assert!(
        err.to_string()
            .contains("top-up 7 was credited but not paid"),
        "{err}"
    );
}

#[test]
fn a_keyed_credit_applies_once_and_belongs_to_one_account() {
    let mut book = Book::with_accounts();
    let first =
        plan_keyed_credit(&mut book, alice(), 30, "signup_credits", "signup:1").expect("planned");
    let KeyedCredit::Apply(change) = first else {
        panic!("a new key credits: {first:?}")
    };
    assert_eq!((change.amount, change.balance_after), (30, 30));
    book.carry_out(&[Write::Balance(change)]);
    let again = plan_keyed_credit(&mut book, alice(), 30, "signup_credits", "signup:1");
    assert_eq!(again.expect("planned"), KeyedCredit::AlreadyApplied);
    let other = plan_keyed_credit(&mut book, bob(), 30, "signup_credits", "signup:1");
    assert!(matches!(
        other,
        Err(DeveloperError::Account(AccountError::RequestIdConflict(_)))
    ));
}

#[test]
fn a_keyed_credit_refuses_zero_unknown_accounts_and_a_balance_past_the_maximum() {
    let mut book = Book::with_accounts();
    assert!(matches!(
        plan_keyed_credit(&mut book, alice(), 0, "credits_add", "k0"),
        Err(DeveloperError::Account(AccountError::InvalidAmount(_)))
    ));
    assert!(matches!(
        plan_keyed_credit(&mut book, account(99), 5, "credits_add", "k1"),
        Err(DeveloperError::Account(AccountError::AccountNotFound(_)))
    ));
    book.balances.insert(alice(), MAX_BALANCE - 5);
    assert!(matches!(
        plan_keyed_credit(&mut book, alice(), 5, "credits_add", "k2"),
        Ok(KeyedCredit::Apply(BalanceChange {
            balance_after: MAX_BALANCE,
            ..
        }))
    ));
    assert!(matches!(
        plan_keyed_credit(&mut book, alice(), 6, "credits_add", "k3"),
        Err(DeveloperError::Account(AccountError::InvalidAmount(_)))
    ));
}

#[test]
fn an_event_is_never_recorded_twice_across_kinds() {
    let mut book = Book::with_accounts();
    book.order(7, alice(), 500, 1000);
    book.apply(&paid("evt_1", 7, 1000));
    let plan = book.apply(&refund("evt_1", 7, 1000, "eur"));
    assert_eq!(
        plan.outcome,
        PaymentOutcome::Duplicate,
        "the id decides, not the kind"
    );
    assert_eq!(book.balance_of(alice()), 500);
}

#[test]
fn operator_credit_keys_are_trimmed_and_bounded() {
    assert_eq!(
        operator_credit_key(" batch-7 ").expect("valid"),
        "credits:batch-7"
    );
    for bad in ["", "   ", &"k".repeat(201)] {
        assert!(matches!(
            operator_credit_key(bad),
            Err(AccountError::InvalidCharge(_))
        ));
    }
    assert_eq!(signup_credit_key(alice()), "signup:1");
}
