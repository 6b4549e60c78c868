//! The nag of DESIGN §5 (seed 004): after 3 executor rounds without a `turn_plan` call while
//! tasks are left, one short reminder rides on the next message; the count then restarts.
//! Pure.

/// The reminder, exactly as the model reads it.
pub const REMINDER: &str = "<reminder>Update your plan with turn_plan.</reminder>";

/// Rounds without a `turn_plan` call before the reminder.
pub const ROUNDS_BEFORE_REMINDER: u32 = 3;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Nag {
    rounds_without_plan_call: u32,
}

impl Nag {
    /// Counts a finished tool round; true when the reminder goes with the next message.
    /// Rounds with no work left (or no plan at all) do not count and restart the count.
    pub fn after_round(&mut self, called_turn_plan: bool, tasks_left: bool) -> bool {
        if called_turn_plan || !tasks_left {
            self.rounds_without_plan_call = 0;
            return false;
        }
        self.rounds_without_plan_call += 1;
        if self.rounds_without_plan_call < ROUNDS_BEFORE_REMINDER {
            return false;
        }
        self.rounds_without_plan_call = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (called turn_plan, tasks left) per round → whether the reminder follows.
    #[test]
    fn table_of_rounds() {
        type Case = (&'static str, &'static [(bool, bool)], &'static [bool]);
        let cases: &[Case] = &[
            ("three quiet rounds", &[(false, true); 3], &[false, false, true]),
            ("the count restarts", &[(false, true); 6], &[false, false, true, false, false, true]),
            (
                "a call resets",
                &[(false, true), (false, true), (true, true), (false, true), (false, true)],
                &[false; 5],
            ),
            ("no plan, no nag", &[(false, false); 5], &[false; 5]),
            (
                "work done resets",
                &[(false, true), (false, true), (false, false), (false, true)],
                &[false; 4],
            ),
        ];
        for (name, rounds, expected) in cases {
            let mut nag = Nag::default();
            let got: Vec<bool> =
                rounds.iter().map(|&(called, left)| nag.after_round(called, left)).collect();
            assert_eq!(&got, expected, "{name}");
        }
        assert_eq!(REMINDER.lines().count(), 1, "one short line");
    }
}
