//! Labels of the deterministic tasks on hand-checked methods, and the
//! dataset reader on malformed input.

use quarry_probe::dataset::{escape_backslashes, unescape_backslashes, MalformedAction};
use quarry_probe::{check_labels, label_of, Dataset, Split, Task};

const ADD: &str = "public int add ( String item , int amount ) { if ( amount < 0 ) { throw new IllegalArgumentException ( \"negative amount: \" + amount ) ; } int current = stock . getOrDefault ( item , 0 ) ; int updated = current + amount ; stock . put ( item , updated ) ; return updated ; }";

const LOW_STOCK: &str = "public List < String > lowStock ( int threshold ) { List < String > result = new ArrayList < > ( ) ; for ( Map . Entry < String , Integer > entry : stock . entrySet ( ) ) { if ( entry . getValue ( ) <= threshold && ! entry . getKey ( ) . isEmpty ( ) ) { result . add ( entry . getKey ( ) ) ; } } return result ; }";

const DESCRIBE: &str = "public String describe ( int level ) { switch ( level ) { case 0 : return \"empty\" ; case 1 : case 2 : return \"low\" ; default : return \"ok\" ; } }";

const REMOVE_ALL: &str = "public boolean removeAll ( List < String > items ) { boolean changed = false ; try { for ( String item : items ) { while ( stock . containsKey ( item ) ) { stock . remove ( item ) ; changed = true ; } } } catch ( UnsupportedOperationException e ) { return false ; } return changed ; }";

fn label(task: Task, text: &str) -> String {
    label_of(task, text).unwrap().unwrap_or_else(|| "-".into())
}

#[test]
fn length_bins_count_lexer_tokens() {
    // 60 tokens: the string literal with spaces is one token.
    assert_eq!(quarry_probe::java::code_tokens(ADD).len(), 60);
    assert_eq!(label(Task::Len, ADD), "B");
    assert_eq!(label(Task::Len, DESCRIBE), "A");
    assert_eq!(label(Task::Len, &vec!["x ;"; 80].join(" ")), "D");
}

#[test]
fn unique_operators() {
    // <  =  +  (three distinct)
    assert_eq!(label(Task::Ocu, ADD), "3");
    // < > (generics) = : <= && !
    assert_eq!(label(Task::Ocu, LOW_STOCK), "7");
}

#[test]
fn unique_variables_are_declared_locals_and_for_each_variables() {
    assert_eq!(label(Task::Vcu, ADD), "2"); // current, updated
    assert_eq!(label(Task::Vcu, LOW_STOCK), "2"); // result, entry
    assert_eq!(label(Task::Vcu, REMOVE_ALL), "2"); // changed, item (not the catch parameter)
}

#[test]
fn structures_nesting_and_decisions() {
    assert_eq!(label(Task::Csc, ADD), "1");
    assert_eq!(label(Task::Csc, REMOVE_ALL), "3"); // try, for, while
    assert_eq!(label(Task::Mxn, REMOVE_ALL), "4");
    assert_eq!(label(Task::Mxn, DESCRIBE), "2");
    assert_eq!(label(Task::Cpx, LOW_STOCK), "3"); // for, if, &&
    assert_eq!(label(Task::Cpx, DESCRIBE), "3"); // three `case`
    assert_eq!(label(Task::Cpx, REMOVE_ALL), "3"); // for, while, catch
}

#[test]
fn npath_follows_the_released_rules() {
    assert_eq!(label(Task::Npt, ADD), "2"); // if: 0 + 1 + 1
                                            // for-each (body + 1) over if with one && (1 + 1 + 1) = 4
    assert_eq!(label(Task::Npt, LOW_STOCK), "4");
    // labels 0, (1 falls through to 2), default: 1 + (1 + 1) + 1
    assert_eq!(label(Task::Npt, DESCRIBE), "4");
    // try: for-each(while(0 + 1 + 1) + 1) = 3, plus catch 1 = 4
    assert_eq!(label(Task::Npt, REMOVE_ALL), "4");
    let anonymous = "void start ( ) { if ( ready ) return ; run ( new Runnable ( ) { public void run ( ) { if ( a ) go ( ) ; } } ) ; }";
    assert_eq!(label(Task::Npt, anonymous), "4");
}

#[test]
fn mutation_tasks_have_no_text_label() {
    assert!(label_of(Task::Jbl, ADD).is_err());
}

#[test]
fn reader_counts_and_repairs_malformed_lines() {
    let text = b"stray line\ntr\t1\tint f ( ) { String s = \"a\nb\" ; return 1 ; }\n\nva\t\tno label\nte\t2\tx ; y ;\r\nte\t3\t\xff ;\n";
    let dataset = Dataset::parse(text);
    assert_eq!(dataset.samples.len(), 3);
    assert_eq!(dataset.samples[0].text, "int f ( ) { String s = \"a\nb\" ; return 1 ; }");
    assert_eq!(dataset.samples[0].line, 2);
    assert_eq!(dataset.samples[1].split, Split::Test);
    assert_eq!(dataset.samples[1].text, "x ; y ;");
    let actions: Vec<(usize, MalformedAction)> = dataset.malformed.iter().map(|m| (m.line, m.action)).collect();
    assert_eq!(
        actions,
        [(1, MalformedAction::Skipped), (3, MalformedAction::Continued), (5, MalformedAction::Skipped)]
    );
    assert_eq!(dataset.blank_lines, 1);
    assert_eq!(dataset.invalid_utf8_lines, 1);
}

#[test]
fn writer_round_trips_and_keeps_one_sample_per_line() {
    let dataset = Dataset::parse(b"tr\tA\tint x = 1 ;\nte\tB\tString s = \"a\\\\n\" ;\n");
    let mut out = Vec::new();
    quarry_probe::dataset::write_samples(&mut out, &dataset.samples).unwrap();
    assert_eq!(Dataset::parse(&out).samples, dataset.samples);
    assert_eq!(dataset.samples[1].code(), "String s = \"a\\n\" ;");
    assert_eq!(unescape_backslashes(&escape_backslashes("'\\''")), "'\\''");
}

#[test]
fn check_reports_agreement_and_confusion() {
    let text = format!("tr\t2\t{ADD}\nva\t4\t{LOW_STOCK}\nte\t9\t{DESCRIBE}\n");
    let check = check_labels(Task::Npt, &Dataset::parse(text.as_bytes())).unwrap();
    assert_eq!((check.samples, check.agreeing), (3, 2));
    assert!((check.agreement - 2.0 / 3.0).abs() < 1e-9);
    let nine = check.confusion.labels.iter().position(|l| l == "9").unwrap();
    let four = check.confusion.labels.iter().position(|l| l == "4").unwrap();
    assert_eq!(check.confusion.counts[nine][four], 1);
}

#[test]
fn deeply_nested_methods_do_not_overflow_the_stack() {
    let depth = 20_000;
    let text = format!("void f ( ) {{ {} x ( ) ; {} }}", "if ( a ) { ".repeat(depth), "} ".repeat(depth));
    for task in [Task::Len, Task::Ocu, Task::Vcu, Task::Csc, Task::Mxn, Task::Cpx, Task::Npt] {
        // Out of every class's range, but computed without a crash.
        let _ = label_of(task, &text).unwrap();
    }
    assert_eq!(label(Task::Mxn, &text), "-");
    assert_eq!(label(Task::Npt, &text), "-");
}
