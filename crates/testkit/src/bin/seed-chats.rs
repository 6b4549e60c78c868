//! `seed-chats DB CHATS MESSAGES [NEEDLE]`: a data folder's database filled with CHATS chats
//! of MESSAGES short messages each (user and assistant in turn; NEEDLE, when given, ends the
//! oldest chat's first message, for a search to find), 100 chats to a transaction,
//! through the engine's own store (so every index and the search tables are kept as a real
//! chat keeps them). The window's scroll figure (`tests/e2e/measure.mjs`, PARTS=scroll) opens
//! the app on it, and the search e2e (`tests/e2e/search.test.mjs`) a hit in it.

use preflight_protocol::chat::ChatSettings;
use preflight_store::Store;
use preflight_testkit::store::fixtures::{assistant, user};

const PER_TRANSACTION: usize = 100;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (db, chats, messages, needle) = match args.as_slice() {
        [db, chats, messages] => (db, chats, messages, ""),
        [db, chats, messages, needle] => (db, chats, messages, needle.as_str()),
        _ => {
            eprintln!("usage: seed-chats DB CHATS MESSAGES [NEEDLE]");
            std::process::exit(2);
        }
    };
    let (Ok(chats), Ok(messages)) = (chats.parse::<usize>(), messages.parse::<usize>()) else {
        eprintln!("seed-chats: CHATS and MESSAGES are counts");
        std::process::exit(2);
    };
    let store = Store::open(db).expect("the store opens");
    let mut made = 0;
    while made < chats {
        let batch = PER_TRANSACTION.min(chats - made);
        store
            .write(|tx| {
                for n in made..made + batch {
                    let chat = tx.insert_chat(&settings(n))?;
                    for m in 0..messages {
                        let said = if m % 2 == 0 {
                            let tail = if n == 0 && m == 0 { needle } else { "" };
                            user(format!("Question {m} about the March orders {tail}").trim_end())
                        } else {
                            assistant(&format!("Answer {m}: the **orders** are in `orders.csv`."))
                        };
                        tx.insert_message(&chat.id, &said)?;
                    }
                }
                Ok(())
            })
            .expect("a batch of chats is written");
        made += batch;
    }
    println!("{made} chats of {messages} messages in {db}");
}

/// A plain chat without a workspace, as most chats are.
fn settings(n: usize) -> ChatSettings {
    ChatSettings {
        title: format!("Chat {n}: orders report"),
        workspace: None,
        plan_mode: false,
        auto_approve: false,
        save_plans: false,
        scope: Vec::new(),
    }
}
