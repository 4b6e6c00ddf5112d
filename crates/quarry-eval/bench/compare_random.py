#!/usr/bin/env python3
"""Differential check of `quarry metrics` against the Python reference
implementations on random, adversarial lines (ASCII punctuation soup, Python
and Unicode whitespace, combining marks, HTML entities, case-changing
characters, empty lines), per line.

Usage (from the repository root, after `cargo build --release -p quarry-cli`):
    python3 crates/quarry-eval/bench/compare_random.py [SEED] [--quarry PATH]

Prints the number of mismatching lines (beyond 1e-9) for every metric.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import warnings

warnings.simplefilter('ignore')
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'fixtures'))
import make_metrics_fixture as fx  # noqa: E402

args = [a for a in sys.argv[1:]]
QUARRY = 'target/release/quarry'
if '--quarry' in args:
    i = args.index('--quarry')
    QUARRY = args[i + 1]
    del args[i:i + 2]
rng = random.Random(int(args[0]) if args else 7)
QUARRY = os.path.abspath(QUARRY)
os.chdir(tempfile.mkdtemp(prefix='quarry-compare-'))
alpha = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + list(".,;:!?-'\"()[]{}<>/\\|@#$%^&*_+=~`") + [' ']*10 + ['\t','\x0b','\x0c','\x1c','\x1d','\x1e','\x1f','\x85','\xa0','\u2028','\u2029','\u3000','\u200b','é','ß','İ','K','ﬁ','Σ','ς','中','🚀','\u0301','٣','²','½']
words = ["the","a","an","run","running","ran","large","big","happy","happily","file","files","dies","skies","news","generalization","the.","a,","1.5","3-4","&amp;","&lt;","<skipped>","x-\n"]
def line():
    r=rng.random()
    if r<0.05: return ""
    if r<0.5:
        return ''.join(rng.choice(alpha) for _ in range(rng.randrange(0,60)))
    toks=[rng.choice(words+[''.join(rng.choice(alpha) for _ in range(rng.randrange(1,6)))]) for _ in range(rng.randrange(0,15))]
    return rng.choice([' ','  ','\xa0',' . ']).join(toks).replace('\n','')
N=3000
hyps=[line() for _ in range(N)]
refs=[line() if rng.random()<0.8 else h for h in hyps]
for name,lines in (('hyp.txt',hyps),('ref.txt',refs)):
    open(name,'w',encoding='utf-8',newline='\n').write(''.join(l+'\n' for l in lines))
def q(*args):
    out=subprocess.run([QUARRY,'metrics',*args,'--hyp','hyp.txt','--ref','ref.txt','--format','json','--per-line'],capture_output=True,text=True)
    if out.returncode!=0: return None, out.stderr
    return json.loads(out.stdout), None
import sacrebleu
from nltk.translate.bleu_score import sentence_bleu, SmoothingFunction
from nltk.translate.meteor_score import meteor_score
from rouge_score import rouge_scorer
def cmp(name, got, exp):
    bad=[(i,g,e) for i,(g,e) in enumerate(zip(got,exp)) if not (e is None and g is None) and (e is None or g is None or abs(g-e)>1e-9)]
    print(f"{name}: {len(bad)} mismatches of {len(exp)}", [(i,repr(hyps[i]),repr(refs[i]),g,e) for i,g,e in bad[:3]])
r,_=q('bleu'); cmp('bleu corpus',[r['score']],[sacrebleu.corpus_bleu(hyps,[refs]).score]); cmp('bleu sentence', r['per_line'], [sacrebleu.sentence_bleu(h,[x]).score for h,x in zip(hyps,refs)])
sf=SmoothingFunction()
for w,m in (((1,0,0,0),0),((0.25,)*4,1),((0.25,)*4,4),((0.25,)*4,5),((0.25,)*4,7)):
    r,err=q('sentence-bleu','--weights',','.join(map(str,w)),'--smoothing',f'method{m}')
    exp=[sentence_bleu([x.split()],h.split(),w,getattr(sf,f'method{m}')) for h,x in zip(hyps,refs)]
    if r is None: print('error',err); continue
    cmp(f'nltk {w} m{m}', r['per_line'], exp)
for stem in (False,True):
    sc=rouge_scorer.RougeScorer(['rougeL'],use_stemmer=stem)
    r,_=q('rouge-l',*(['--stem'] if stem else []))
    cmp(f'rouge stem={stem}', r['per_line'], [sc.score(x,h)['rougeL'].fmeasure for h,x in zip(hyps,refs)])
wn=fx.open_wordnet()
r,_=q('meteor'); cmp('meteor', r['per_line'], [meteor_score([x.split()],h.split(),wordnet=wn) for h,x in zip(hyps,refs)])
r,_=q('em'); cmp('em', r['per_line'], [float(fx.squad_em(h,x)) for h,x in zip(hyps,refs)])
r,_=q('f1'); cmp('f1', r['per_line'], [float(fx.squad_f1(h,x)) for h,x in zip(hyps,refs)])
r,_=q('codeqa-rouge-l'); cmp('codeqa rouge', r['per_line'], fx.codeqa_rouge(hyps,[refs])[0])
