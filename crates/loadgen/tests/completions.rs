//! `loadgen completions` and `loadgen man`, made from the clap definitions:
//! a real bash completes flags and subcommands from the script, and every
//! man page renders with groff's warnings all on and none raised.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// What bash offers for the words of `line` (the last one being completed),
/// from the completion script sourced into a shell without rc files.
fn bash_completes(script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        r#"source '{script}'
spec=$(complete -p loadgen) || exit 3
function=$(printf '%s\n' "$spec" | sed -n 's/.*-F \([^ ]*\).*/\1/p')
COMP_WORDS=({words})
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
"$function" loadgen "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        script = path_str(script),
        words = quoted.join(" "),
    );
    let mut bash = Command::new("bash");
    bash.args(["--norc", "--noprofile", "-c", &program]);
    let output = run_bounded(bash, RUN_LIMIT);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    stdout(&output)
        .lines()
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn bash_completes_flags_and_subcommands() {
    let dir = TempDir::new("completions");
    let output = run(&["completions", "bash"]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let script = dir.write("loadgen.bash", &output.stdout);

    let offered = bash_completes(&script, &["loadgen", "--h"]);
    for flag in ["--h1", "--h3", "--header", "--help"] {
        assert!(
            offered.iter().any(|o| o == flag),
            "{flag} not in {offered:?}"
        );
    }
    assert!(offered.iter().all(|o| o.starts_with("--h")), "{offered:?}");

    let offered = bash_completes(&script, &["loadgen", "r"]);
    assert_eq!(offered, ["run", "report"], "{offered:?}");

    // A subcommand's own flags.
    let offered = bash_completes(&script, &["loadgen", "convert", "--inc"]);
    assert_eq!(offered, ["--include-assets"], "{offered:?}");
}

#[test]
fn every_shell_gets_a_script() {
    for (shell, mark) in [
        ("zsh", "#compdef loadgen"),
        ("fish", "complete -c loadgen"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[loadgen]"),
    ] {
        let output = run(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
        let script = stdout(&output);
        assert!(script.contains(mark), "{shell}: no {mark}");
        assert!(
            script.contains("include-assets"),
            "{shell}: no convert flags"
        );
    }
    let output = run(&["completions", "tcsh"]);
    assert_error(&output, 2, &["tcsh"]);
}

#[test]
fn man_pages_render_without_warnings() {
    let dir = TempDir::new("man");
    let pages = dir.path().join("man1");
    let output = run(&["man", path_str(&pages)]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for page in [
        "loadgen.1",
        "loadgen-run.1",
        "loadgen-convert.1",
        "loadgen-serve.1",
        "loadgen-sweep.1",
        "loadgen-completions.1",
        "loadgen-man.1",
    ] {
        assert!(names.iter().any(|n| n == page), "no {page} in {names:?}");
    }
    // What the command listed is what it wrote.
    assert_eq!(
        stdout(&output).lines().count(),
        names.len(),
        "{}",
        describe(&output)
    );

    for name in &names {
        let page = pages.join(name);
        let mut groff = Command::new("groff");
        groff.args(["-ww", "-man", "-Tutf8"]).arg(&page);
        let rendered = run_bounded(groff, RUN_LIMIT);
        assert_eq!(
            rendered.status.code(),
            Some(0),
            "{name}: {}",
            describe(&rendered)
        );
        assert!(
            rendered.stderr.is_empty(),
            "{name}: groff warned\n{}",
            describe(&rendered)
        );

        let mut man = Command::new("man");
        man.arg("-l")
            .arg(&page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .env_remove("MAN_KEEP_FORMATTING");
        let shown = run_bounded(man, RUN_LIMIT);
        assert_eq!(shown.status.code(), Some(0), "{name}: {}", describe(&shown));
        assert!(
            shown.stderr.is_empty(),
            "{name}: man warned\n{}",
            describe(&shown)
        );
        let text = stdout(&shown);
        let command = name.trim_end_matches(".1");
        assert!(text.contains("SYNOPSIS"), "{name}:\n{text}");
        assert!(text.contains(command), "{name}:\n{text}");
    }
    let top = std::fs::read_to_string(pages.join("loadgen.1")).unwrap();
    assert!(
        top.contains("loadgen\\-convert(1)"),
        "the subcommands are listed"
    );
}
