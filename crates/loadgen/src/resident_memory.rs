//! What the process keeps resident from before its first request: two
//! kinds of pages a load generator never uses, given back at start-up.

/// mimalloc asks the kernel for transparent huge pages on the memory it
/// reserves (`madvise(MADV_HUGEPAGE)`), so the first small allocation in a
/// region makes 2 MiB of it resident: megabytes of a run's peak RSS for
/// nothing a load generator needs (see docs/performance.md, "Memory"). This
/// turns them off for the whole process from a constructor, which runs
/// before the Rust runtime's first allocation; from `main` it is too late
/// for the pages that allocation already faulted in.
///
/// The same constructor gives back the relocation table, which the dynamic
/// loader has finished with by then ([`release_relocation_table`]).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static AT_START: extern "C" fn() = {
    extern "C" fn at_start() {
        // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
        release_relocation_table();
    }
    at_start
};

/// A position-independent executable carries a table of where each pointer
/// in its data is, for the loader to add the load address to (`.rela.dyn`,
/// 0.77 MB here: one entry for each of some 33,000 pointers in vtables and
/// tables of strings). The loader reads it once, before any constructor
/// runs, and never again; its pages stay resident all the same, three
/// quarters of a megabyte of a 1,000-connection run's 10 MB. Packed
/// relocations (`-z pack-relative-relocs`) would make it a twentieth of
/// that, but need glibc 2.36 to load.
///
/// The table lies in a read-only segment mapped from the file, so its
/// pages are never written: dropping them (`MADV_DONTNEED`) loses nothing,
/// and a page read again comes back from the file. Only whole pages inside
/// the table are dropped, and only when the table is found where a
/// read-only segment of this executable maps it.
#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
fn release_relocation_table() {
    unsafe extern "C" fn on_main_program(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        _data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: glibc passes the executable first, with its program
        // headers as the kernel and loader mapped them; they and the
        // dynamic section they point to stay mapped for the process's life.
        unsafe { release_from(&*info) };
        1 // the executable alone
    }
    // SAFETY: the callback reads only the headers it is handed.
    unsafe {
        libc::dl_iterate_phdr(Some(on_main_program), std::ptr::null_mut());
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64")))]
fn release_relocation_table() {}

/// # Safety
/// `info` describes a loaded object whose program headers and dynamic
/// section are mapped.
#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
unsafe fn release_from(info: &libc::dl_phdr_info) {
    /// An entry of the dynamic section (`Elf64_Dyn`).
    #[repr(C)]
    struct DynamicEntry {
        tag: i64,
        value: u64,
    }
    const DT_NULL: i64 = 0;
    const DT_RELA: i64 = 7;
    const DT_RELASZ: i64 = 8;
    let base = info.dlpi_addr as usize;
    // SAFETY: dlpi_phdr points to dlpi_phnum headers.
    let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum.into()) };
    let Some(dynamic) = headers.iter().find(|h| h.p_type == libc::PT_DYNAMIC) else {
        return;
    };
    let (mut table, mut table_size) = (None, None);
    let mut entry = (base + dynamic.p_vaddr as usize) as *const DynamicEntry;
    // SAFETY: the dynamic section is an array of entries ending in DT_NULL.
    unsafe {
        while (*entry).tag != DT_NULL {
            match (*entry).tag {
                DT_RELA => table = Some((*entry).value as usize),
                DT_RELASZ => table_size = Some((*entry).value as usize),
                _ => {}
            }
            entry = entry.add(1);
        }
    }
    let (Some(table), Some(table_size)) = (table, table_size) else {
        return;
    };
    // glibc adds the load address to the entry in place; the file has the
    // address relative to it.
    let start = if table >= base { table } else { base + table };
    let end = start + table_size;
    let read_only = headers.iter().any(|h| {
        let from = base + h.p_vaddr as usize;
        h.p_type == libc::PT_LOAD
            && h.p_flags & libc::PF_W == 0
            && from <= start
            && end <= from + h.p_memsz as usize
    });
    if !read_only {
        return;
    }
    // SAFETY: sysconf has no preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        size if size > 0 => size as usize,
        _ => return,
    };
    let first = start.div_ceil(page) * page;
    let last = end / page * page;
    if last > first {
        // SAFETY: whole pages of a read-only file mapping, never written;
        // a later read faults them in from the file again.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_DONTNEED,
            );
        }
    }
}
