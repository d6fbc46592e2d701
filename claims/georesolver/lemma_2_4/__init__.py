"""GeoResolver §2.4, Lemma 2.4 (Lipschitz scaling) and its proof's Step 1, one module per claim.

The lemma's "Lipschitz constant" is read as its proof defines it: L = sup ‖∂o_i/∂q_i‖₂, o_i =
Σ_j W_ij v_j, keys and values fixed, over bounded inputs and ‖v_j‖ ≤ L_V (R = L_V = 1: the exponents
in n, ε and d do not depend on them). The statement's O(·) bounds are fits of the worst case (a
search plus extremal constructions: ``checks.search.WorstCase``); the proof's intermediate bounds
are ``proof`` steps and checks.
Reading ``n-free`` (the suite's derivation): ∂o/∂q = Σ_j W_j (v_j − v̄)(g_j − ḡ)ᵀ with g_j =
∂log S_j/∂q, so by Cauchy–Schwarz ‖∂o/∂q‖ ≤ L_V·max_j ‖g_j‖: L_V·max_{0≤a≤R} 2a/(a²+ε) (IDA) and
L_V·R/√d (softmax), attained for every even n by two key groups at q ± a·e₁, values ±L_V·e₁.
"""
