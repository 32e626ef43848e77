"""The written and open-ended exercises' specs (chapters 1-19): rubrics graded by hand.

Part of :data:`booktools.exercises.SPECS` (see that module for the kinds).
"""

from __future__ import annotations

from booktools.exercise_spec import Spec, open_ended, written

SPECS: dict[str, Spec] = {}

# --------------------------------------------------------------------------- chapter 9: masks
SPECS["ex-09-1"] = written(
    "1 point: numerators e^{s_j - inf} = 0 outside A and e^{s_j} on A. 1 "
    "point: the denominator reduces to the sum over A, positive because A "
    "is nonempty, so the weights are softmax over A. Half a point off "
    "without using that A is nonempty (the fully masked row)."
)
# --------------------------------------------------------------------------- chapter 11: FFN
SPECS["ex-11-1"] = written(
    "1 point: both identities derived from Phi(-x) = 1 - Phi(x), the second "
    "in the cases x >= 0 and x < 0. 1 point: the gap |x| Phi(-|x|) is "
    "bounded by max t Phi(-t) (about 0.17) and tends to 0 because Phi(-t) "
    "decays like e^{-t^2/2}. Half a point off for one case of the second "
    "identity missing."
)
SPECS["ex-11-5"] = written(
    "1 point: 2HF + F + H = 8,393,728 for the FFN. 1 point: the layer has "
    "12,596,224 parameters and the FFN is 66.6 %, two thirds (8H^2 of "
    "12H^2). Half a point for the fraction right from a slipped count."
)

# --------------------------------------------------------------------------- chapter 12: LayerNorm
SPECS["ex-12-1"] = written(
    "1 point: the mean of (x - mu)/s is 0 and its variance sigma^2/(sigma^2 "
    "+ eps), hence the norm sqrt(H) sigma/sqrt(sigma^2 + eps) < sqrt(H). 1 "
    "point: 'unit variance' is accurate only when sigma^2 >> eps (and with "
    "gamma = 1, beta = 0); far off for nearly constant rows."
)
SPECS["ex-12-4"] = written(
    "1 point: X_l = X_{l-1} + a_l + f_l and the telescoping sum. 1 point: "
    "in post-LN the LayerNorm rescales the whole stream after every "
    "sublayer, so X_0 reaches the output only through 2L normalizations, "
    "while pre-LN keeps an identity path from X_0 to X_L. Half a point for "
    "the sum without the post-LN contrast."
)
SPECS["ex-12-5"] = written(
    "1 point: 25 LayerNorms x 2H = 38,400 for GPT-2 small. 1 point: 24 x "
    "1,536 = 36,864 for GPT-1, which equals source 000's L * 4H, and that "
    "count misses GPT-2's final LayerNorm. Half a point for counting one "
    "LayerNorm per block."
)

# --------------------------------------------------------------------------- chapters 1-4
SPECS["ex-01-1"] = written(
    "One point per two correct kinds (supervised, unsupervised, "
    "reinforcement, self-supervised), each with its reason."
)
SPECS["ex-01-2"] = written(
    "1 point: the update theta <- (1 - alpha*lambda) theta and theta_k by "
    "induction. 1 point: alpha = 1/lambda reaches the minimum in one step, "
    "and at alpha = 2/lambda theta flips between theta_0 and -theta_0 "
    "(neither converging nor diverging). Half a point off for the closed "
    "form stated without the induction."
)
SPECS["ex-01-3"] = open_ended()
SPECS["ex-02-1"] = written(
    "1 point: H = -sum (1/V) log_b(1/V) = log_b V shown. 1 point: about "
    "15.6 bits for V = 50,257 and ln 50,257 = 10.8 nats as the uniform "
    "model's cross-entropy on any text (half for only one of the two "
    "numbers, or a number in the wrong unit)."
)
SPECS["ex-02-2"] = written(
    "1 point: e^c factored out of numerator and denominator and canceled. "
    "1 point: a counterexample or the argument that softmax(2z)_i is "
    "proportional to (e^{z_i})^2, and 'multiplying by 2 = temperature 1/2, "
    "a sharper distribution' (half without the temperature reading)."
)
SPECS["ex-02-4"] = written(
    "1 point: softmax gives every class a positive probability, so q_y < 1 "
    "and the loss is > 0; the loss is small when the right logit exceeds "
    "the others by a wide margin. 1 point: -ln 1e-9 = 20.7 nats (about 30 "
    "bits accepted with the unit stated) and the remark that a confident "
    "mistake is punished hard."
)
SPECS["ex-03-1"] = written(
    "1 point: the derivative e^{-z}(1+e^{-z})^{-2} rewritten as sigma(1 - "
    "sigma). 1 point: s(1 - s) maximal at s = 1/2 (z = 0), giving 1/4. Half "
    "a point for the bound checked numerically only."
)
SPECS["ex-03-2"] = written(
    "Full marks (2 points) for the identity and the derivative derived, "
    "with a numerical check on a grid; half (1 point) without the check."
)
SPECS["ex-03-5"] = open_ended()
SPECS["ex-04-1"] = written(
    "1 point each: the gradient factor w^k with k = 132 for w = 0.9 (131.1 "
    "computed) and k = 1375 for w = 0.99 (1374.6). An off-by-one (131, "
    "1374) loses half a point once; a correct method with an arithmetic "
    "slip keeps half."
)
SPECS["ex-04-4"] = written(
    "1 point: 0.95^60 = 0.046, about 5 % survives. 1 point: 0.5^60 = "
    "8.7e-19, no better than the plain RNN, hence a positive forget-gate "
    "bias (half without that conclusion)."
)

# --------------------------------------------------------------------------- chapters 5-8, 10
SPECS["ex-05-1"] = written(
    "1 point: the translation B, n, H, A, D and the three shapes B x n x H "
    "-> B x n x A x D -> B x A x n x D with the weight H x AD (= H x H). 1 "
    "point: the GPT-2 small numbers 8 x 1024 x 768 -> 8 x 1024 x 12 x 64 -> "
    "8 x 12 x 1024 x 64 and 768 x 768. Half a point off per swapped letter "
    "pair (for example H and A)."
)
SPECS["ex-05-2"] = written(
    "1 point: both sizes in MiB. 1 point: the n^2 (attention weights) "
    "against n (activations) growth explained. Half a point for a size off "
    "by a unit."
)
SPECS["ex-05-3"] = written(
    "1 point: 'vector-wise' and the prediction (the V entries of one row). "
    "1 point: the check run and agreeing. Half a point for the prediction "
    "without the check's agreement."
)
SPECS["ex-05-4"] = written(
    "1 point: the box only needs the concatenation (n x AD) to match W^O, "
    "so any D works; GPT-2 splits the columns of one H x H matrix into A "
    "blocks, forcing D = H/A (an implementation choice). 1 point: the run "
    "with H = 6, A = 4, D = 5 showing a (n, 20) concatenation and an (n, 6) "
    "output."
)
SPECS["ex-06-2"] = open_ended()
SPECS["ex-06-3"] = written(
    "(a) V = 256 + 32,000 + 3 = 32,259: half a point. (b) byte-level base "
    "symbols cover every UTF-8 text while a character-level BPE lacks "
    "characters unseen in training ('é'): 1 point. (c) V*H: 31,087,104 for "
    "GPT-1 and 38,597,376 for GPT-2: half a point."
)
SPECS["ex-07-1"] = written(
    "Each of three parts: the dense cost n V H = 3.95e10 multiply-adds, the "
    "n H = 786,432 with a nonzero factor, and n V = 51,463,168 entries x 4 "
    "bytes = 206 MB. 2 points for all three, 1 point for two; a wrong unit "
    "(MiB/MB mixed up with the unit stated) is not penalised."
)
SPECS["ex-07-2"] = written(
    "1 point: each sin/cos column pair gives cos(omega_k (p - q)) by the "
    "subtraction formula, summed over H/2 pairs. 1 point: every cosine <= "
    "1, so the sum <= H/2 with equality at p = q. The remark on p != q is "
    "not required."
)
SPECS["ex-07-4"] = written(
    "1 point: rows 2, 5, 7 and the gradient of row 2 (all 2). 1 point: the "
    "explanation through O^T (each occurrence adds its row). Half a point "
    "for the rows without the gradient."
)
SPECS["ex-08-1"] = written(
    "1 point: E[q.k] = 0 by independence. 1 point: each term has variance "
    "E[q^2]E[k^2] = 1, the D independent terms add to D, and c = 1/sqrt(D) "
    "gives variance 1. Half a point off when the independence of the terms "
    "is used without being stated."
)
SPECS["ex-08-2"] = written(
    "(a) uniform weights, every output row the mean of the values, and (b) "
    "every output row is v: 1 point together (half for one). (c) the "
    "weights tend to uniform over the largest scores, [0, 0.5, 0.5] for "
    "input 1, so the slides' numbers are temperature 0: 1 point (half "
    "without the temperature remark)."
)
SPECS["ex-10-1"] = written(
    "1 point: 3AHD + ADH = 4AHD without biases and 4AHD + 3AD + H with "
    "them. 1 point: with AD = H the count is 4H^2 (+ 4H), independent of A, "
    "and 4,198,400 for GPT-2 medium. Half a point for a correct formula "
    "with a wrong final number."
)
SPECS["ex-10-3"] = written(
    "1 point: the comparison run, showing a difference. 1 point: the "
    "positions (not the columns) end up in 'head 1', explained. Half a "
    "point for the difference shown but not explained."
)
SPECS["ex-10-4"] = written(
    "1 point: head_i = P_i X W_i^V and associativity give P_i X (W_i^V "
    "W^O_[i]). 1 point: the product is H x H of rank at most D, and a "
    "reason to keep the factors (2HD numbers instead of H^2, computing in "
    "width D). Half a point for shape and rank without a reason."
)

# --------------------------------------------------------------------------- chapters 13-18
SPECS["ex-13-1"] = written("One point per two correct shapes out of seven.")
SPECS["ex-13-2"] = written(
    "1 point: the check over every prefix. 1 point: the count of passes "
    "saved. Half a point for a count off by one pass."
)
SPECS["ex-13-3"] = written(
    "1 point: the logit (X W_e^T)_{i,v} written as the sum over k, the dot "
    "product of the hidden row i with embedding row v. 1 point: equal "
    "embedding rows give equal logits, hence equal probabilities at every "
    "position (weight tying)."
)
SPECS["ex-14-1"] = written(
    "1 point: X^(L) = X^(0) + sum over l of (a_l + f_l), and the identity "
    "path from the embedding to the output untouched by any LayerNorm. 1 "
    "point: nothing bounds the size of that sum, so GPT-2 normalizes once "
    "more before the de-embedding, while GPT's last operation is already a "
    "LayerNorm (post-LN)."
)
SPECS["ex-14-3"] = written(
    "1 point: dense causal n(n+1)/2 = 2,098,176 scores (n^2 = 4,194,304 "
    "accepted when said to be the plain masked implementation). 1 point: "
    "banded wn - w(w-1)/2 = 93,173 and the fraction about 4.4 %. Half a "
    "point for a band count off by the w(w-1)/2 correction."
)
SPECS["ex-14-4"] = open_ended()
SPECS["ex-15-1"] = written(
    "1 point: the sequence [CLS] a1 a2 a3 [SEP] b1 b2 [SEP] with t = "
    "(0,0,0,0,0,1,1,1). 1 point: sentence positions 2, 3, 4, 6, 7 (1-based) "
    "as the allowed masked positions. Half a point off for including [CLS] "
    "or [SEP] positions."
)
SPECS["ex-15-2"] = written(
    "1 point: row i of the left side is (1 - t_i) w^A + t_i w^B, which is "
    "row t_i of W_type, the right side's row. 1 point: a numerical check "
    "with a difference of about 0 (any sizes)."
)
SPECS["ex-15-3"] = written(
    "1 point: no row can use the words after j: with the autoregressive "
    "mask row j sees x'_1..x'_j only, and x'_j is the mask token. 1 point: "
    "so it ignores the right context BERT may use, while GPT models "
    "P(X_{j+1} | X_1..X_j), where looking right would be cheating."
)
SPECS["ex-16-1"] = written(
    "1 point: attention 4H^2, FFN 8H^2 + 5H, LayerNorms 4H, total 12H^2 + "
    "9H, and the biases 4H more. 1 point: 7,084,800 (and 7,087,872 with the "
    "attention biases) for H = 768. Half a point for a correct formula with "
    "an arithmetic slip."
)
SPECS["ex-16-2"] = written(
    "1 point: L(3AHD + ADH) = 4LH AD depends on the product AD only, so "
    "4LH^2 whatever A with AD = H. 1 point: with D fixed the term grows "
    "linearly in A."
)
SPECS["ex-17-1"] = written(
    "1 point: the Lagrangian, its derivative c_v/q_v = mu, and mu = N from "
    "the constraint. 1 point: the stationary point is the maximum "
    "(concavity, or the cross-entropy/KL argument). Half a point off "
    "without the maximum argued."
)
SPECS["ex-17-3"] = written(
    "1 point: the GPT objective log(1/2) + log 1 = -ln 2 = log P(a a). 1 "
    "point: BERT with the second token masked gives log P(x2 = a | x1 = a) "
    "= 0, which is exact: with one masked token there is no independence "
    "assumption."
)
SPECS["ex-17-4"] = open_ended()
SPECS["ex-18-1"] = written(
    "1 point: ln 50,257 = 10.825 nats per token and ln 256 = 5.545 nats per "
    "byte. 1 point: the units differ (a GPT-2 token is about four "
    "characters), so compare per character (or per byte) after converting."
)
SPECS["ex-18-2"] = written(
    "Half a point for each of the four distributions; the two limits (T to "
    "0: one-hot on the argmax, T to infinity: uniform) are required for "
    "full marks (2 points)."
)
SPECS["ex-18-4"] = written(
    "1 point: 1500 x 32 x 64 = 3,072,000 predictions, about 3.1 passes over "
    "1,003,854 training characters. 1 point: about 1e5 parameters cannot "
    "memorise a million characters, while nanoGPT's ~1e7-parameter model "
    "sees the data many times and can, so it needs dropout. Half a point "
    "for the numbers without the capacity argument."
)
SPECS["ex-19-1"] = written(
    "1 point: both counts. 1 point: the bytes (4 per float32 number). Half "
    "a point for a count off by the biases or the tied matrix."
)
SPECS["ex-19-2"] = written(
    "1 point: p = 0.79 keeps the first two tokens (0.625, 0.375) and p = "
    "0.81 the first three, renormalized by 0.95. 1 point: p = 0.8 argued "
    "(the first two; the floating-point sum 0.5 + 0.3 makes an exact "
    "threshold fragile) and the check with sampling_distribution."
)
SPECS["ex-19-3"] = written(
    "1 point: every cached key and value includes the position embedding of "
    "its absolute position, so sliding shifts every position. 1 point: "
    "every key and value of every layer changes, the whole window must be "
    "recomputed (one uncached pass). A mention of relative positions "
    "(rotary) is welcome, not required."
)
