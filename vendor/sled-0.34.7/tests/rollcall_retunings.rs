//! rollcall's retunings of sled's tree (ROLLCALL.md), tested as rollcall
//! builds it: without the `testing` feature, whose `lock_free_delays`
//! splits every node past two keys. Run alone:
//! `cargo test --features compression --test rollcall_retunings`.

use sled::Config;

/// A new tree in a temporary store.
fn tree() -> sled::Db {
    Config::new().temporary(true).segment_size(64 << 10).use_compression(true).open().unwrap()
}

fn key(i: u64) -> [u8; 8] {
    i.to_be_bytes()
}

/// Keys appended in order, as a game's events are (by seq): the rightmost
/// leaf splits with all but four keys in its left half, so every leaf but
/// the last is full — 61 of the 64 keys a leaf may hold (65, less four),
/// not the 33 of a split in the middle, nor the 9 of sled's 16-key leaves.
#[test]
fn keys_appended_in_order_fill_every_leaf_but_the_last() {
    let db = tree();
    for i in 0..1_000 {
        db.insert(key(i), vec![7u8; 40]).unwrap();
    }
    let shapes = db.leaf_shapes().unwrap();
    let (last, full) = shapes.split_last().unwrap();
    assert!(full.len() >= 15, "{:?}", shapes);
    assert!(full.iter().all(|&(keys, _)| keys == 61), "{:?}", shapes);
    assert!((4..=64).contains(&last.0), "{:?}", shapes);
    assert_eq!(shapes.iter().map(|s| s.0).sum::<usize>(), 1_000);
}

/// Keys in any other order split a leaf in the middle, once it holds more
/// than 64: no leaf holds more than 64 keys, and some hold far more than
/// sled's 16.
#[test]
fn a_leaf_holds_up_to_64_keys() {
    let db = tree();
    // A fixed permutation of 0..1000 (7 is prime to 1000).
    for i in 0..1_000u64 {
        db.insert(key(i * 7 % 1_000), vec![7u8; 40]).unwrap();
    }
    let shapes = db.leaf_shapes().unwrap();
    assert!(shapes.iter().all(|&(keys, _)| keys <= 64), "{:?}", shapes);
    assert!(shapes.iter().any(|&(keys, _)| keys > 48), "{:?}", shapes);
    assert_eq!(shapes.iter().map(|s| s.0).sum::<usize>(), 1_000);
}

/// Past 12 KiB of keys and values, a leaf splits at 16 keys as sled's did:
/// a leaf of large values stays well under the 16 KiB past which sled
/// writes it to a file of its own.
#[test]
fn a_leaf_of_large_values_splits_past_16_keys() {
    let db = tree();
    for i in 0..300 {
        db.insert(key(i), vec![(i % 251) as u8; 1_000]).unwrap();
    }
    let shapes = db.leaf_shapes().unwrap();
    assert!(shapes.iter().all(|&(keys, _)| keys <= 16), "{:?}", shapes);
    // 17 keys of 1 KiB split (more than 16, more than 12 KiB), leaving 13.
    let (_, full) = shapes.split_last().unwrap();
    assert!(full.iter().all(|&(keys, _)| keys == 13), "{:?}", shapes);
    // And values of 600 bytes fit 20 keys (12,160 bytes with their keys) before a split.
    let db = tree();
    for i in 0..300 {
        db.insert(key(i), vec![(i % 251) as u8; 600]).unwrap();
    }
    let shapes = db.leaf_shapes().unwrap();
    let (_, full) = shapes.split_last().unwrap();
    assert!(full.iter().all(|&(keys, _)| keys == 17), "{:?}", shapes);
}

/// A page takes up to 16 fragments (a base and 15 deltas) before the next
/// delta rewrites it whole: sled rewrote it at 10.
#[test]
fn a_page_takes_16_fragments_before_it_is_rewritten() {
    let db = tree();
    let mut seen = vec![];
    for i in 0..40 {
        db.insert(key(i), vec![7u8; 40]).unwrap();
        let shapes = db.leaf_shapes().unwrap();
        assert_eq!(shapes.len(), 1, "40 keys fit one leaf");
        seen.push(shapes[0].1);
    }
    assert_eq!(seen.iter().max(), Some(&16), "{:?}", seen);
    // Once at 16, the next insert rewrites the page whole: one fragment.
    let at = seen.iter().position(|&f| f == 16).unwrap();
    assert_eq!(seen[at + 1], 1, "{:?}", seen);
}
