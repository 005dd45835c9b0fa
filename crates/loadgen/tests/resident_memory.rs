//! The binary gives back the pages of its relocation table at start
//! (`src/resident_memory.rs`): in a running `loadgen serve`, few of
//! `.rela.dyn`'s pages are mapped, where the dynamic loader read all of
//! them. `/proc/PID/pagemap` tells which pages are present; its "present"
//! bit is readable by the process's owner without privileges.

mod common;

use common::*;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

const PAGE: u64 = 4096;

#[test]
fn relocation_table_is_given_back_at_start() {
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_loadgen")).expect("binary path");
    let elf = std::fs::read(&binary).expect("read the binary");
    let (offset, size) = section(&elf, ".rela.dyn").expect("a PIE binary has .rela.dyn");
    let first = offset.div_ceil(PAGE) * PAGE;
    let last = (offset + size) / PAGE * PAGE;
    let whole_pages = (last - first) / PAGE;
    assert!(whole_pages >= 16, "{whole_pages} pages of relocations");

    let (server, _) = serve_on_free_ports();
    let pid = server.0.id();

    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    let mut pagemap = File::open(format!("/proc/{pid}/pagemap")).expect("pagemap");
    let mut present = 0;
    for file_offset in (first..last).step_by(PAGE as usize) {
        let address = address_of(&maps, &binary.display().to_string(), file_offset)
            .unwrap_or_else(|| panic!("offset {file_offset:#x} of the binary is not mapped"));
        let mut entry = [0u8; 8];
        pagemap
            .seek(SeekFrom::Start(address / PAGE * 8))
            .expect("seek pagemap");
        pagemap.read_exact(&mut entry).expect("read pagemap");
        if u64::from_le_bytes(entry) >> 63 == 1 {
            present += 1;
        }
    }
    // A fault on the pages after the table (`.rodata`) maps the cached
    // pages around it too, up to 16: some of the table's last pages may
    // come back that way, never most of it.
    assert!(
        present <= 16.min(whole_pages / 4),
        "{present} of the relocation table's {whole_pages} pages are resident"
    );
}

/// The file offset and size of the section called `name`, from the ELF64
/// section headers.
fn section(elf: &[u8], name: &str) -> Option<(u64, u64)> {
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap()) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(elf[at..at + 4].try_into().unwrap()) as usize;
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap());
    assert_eq!(&elf[..5], b"\x7fELF\x02", "an ELF64 file");
    let headers = u64_at(0x28) as usize;
    let (entry_size, count, names_index) = (u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let header = |index: usize| headers + index * entry_size;
    let names = u64_at(header(names_index) + 0x18) as usize;
    (0..count).find_map(|index| {
        let at = header(index);
        let start = names + u32_at(at);
        let end = start + elf[start..].iter().position(|&b| b == 0)?;
        (&elf[start..end] == name.as_bytes()).then(|| (u64_at(at + 0x18), u64_at(at + 0x20)))
    })
}

/// The address where `path`'s `file_offset` is mapped, from `/proc/PID/maps`.
fn address_of(maps: &str, path: &str, file_offset: u64) -> Option<u64> {
    maps.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 6 || fields[5] != path {
            return None;
        }
        let (start, end) = fields[0].split_once('-')?;
        let start = u64::from_str_radix(start, 16).ok()?;
        let end = u64::from_str_radix(end, 16).ok()?;
        let mapped_from = u64::from_str_radix(fields[2], 16).ok()?;
        let within = file_offset >= mapped_from && file_offset < mapped_from + (end - start);
        within.then(|| start + (file_offset - mapped_from))
    })
}
