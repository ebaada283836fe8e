//! The `contend` example on tokio: tasks of one process and other processes
//! contending for one lock, printing fencing tokens.
//!
//! ```text
//! cargo run --features tokio --example contend_async -- 127.0.0.1:2181 /demo/lock
//! ```
use std::time::Duration;

fn main() -> zkl::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [servers, path] = &args[..] else {
        eprintln!("usage: contend_async SERVERS PATH");
        std::process::exit(1);
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let client = zkl::Client::builder(servers.as_str()).connect_async().await?;
        // Three tasks, each with its own handle (one contender each).
        let mut tasks = Vec::new();
        for task in 0..3 {
            let lock = client.lock(path)?;
            tasks.push(tokio::spawn(async move {
                for _ in 0..2 {
                    let guard = lock.acquire().timeout(Duration::from_secs(30)).await?;
                    println!("task {task} pid {}: acquired {}", std::process::id(), guard.fencing_token());
                    // Work, unless the lock is lost meanwhile.
                    if let Ok(Err(why)) = tokio::time::timeout(Duration::from_millis(300), guard.lost()).await {
                        println!("task {task}: lost the lock: {why}");
                    }
                    drop(guard);
                }
                Ok::<(), zkl::Error>(())
            }));
        }
        for t in tasks {
            t.await.expect("task panicked")?;
        }
        Ok(())
    })
}
