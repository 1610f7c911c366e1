"""xgrammar 0.2.8 (its C++ bindings built against apache-tvm-ffi) on the CPU: an EBNF grammar and
a JSON schema compiled, strings matched, a token bitmask filled and applied to torch logits, a
compiled grammar serialized to JSON and read back.  Every call crosses its bindings library."""
import json

import torch
import xgrammar as xgr

vocab = ["<s>", "</s>", "a", "b", "{", "}", '"', ":", ",", " ", "1", "2", "x", '"x"']
info = xgr.TokenizerInfo(vocab, stop_token_ids=[1])
compiler = xgr.GrammarCompiler(info, max_threads=1)


def allowed(matcher):
    mask = xgr.allocate_token_bitmask(1, info.vocab_size)
    matcher.fill_next_token_bitmask(mask)
    return [i for i in range(info.vocab_size) if (int(mask[0, i // 32]) >> (i % 32)) & 1], mask


ab = compiler.compile_grammar('root ::= "a" "b"* "a"')
m = xgr.GrammarMatcher(ab)
assert allowed(m)[0] == [2]
assert m.accept_token(2) and allowed(m)[0] == [2, 3]
assert not m.accept_token(4)  # "{" is refused, the matcher unchanged
assert m.accept_string("bba") and m.accept_token(1) and m.is_terminated()
assert not xgr.GrammarMatcher(ab).accept_string("ac")

schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
js = compiler.compile_json_schema(json.dumps(schema))
assert xgr.GrammarMatcher(js).accept_string('{"x": 12}')
assert not xgr.GrammarMatcher(js).accept_string('{"y": 1}')

ids, mask = allowed(xgr.GrammarMatcher(ab))
logits = torch.zeros(info.vocab_size)
xgr.apply_token_bitmask_inplace(logits, mask[0])
assert [i for i in range(info.vocab_size) if logits[i] != float("-inf")] == ids

back = xgr.CompiledGrammar.deserialize_json(js.serialize_json(), info)
assert xgr.GrammarMatcher(back).accept_string('{"x": 7}')
assert "root ::=" in str(ab.grammar)
print("xgrammar: EBNF and JSON-schema matching, bitmask, serialization ok")
