//! Indonesian phrase bank.

use super::Bank;

/// Indonesian phrase bank.
pub(crate) const BANK: Bank = Bank {
    titles: &[
        "Prediksi harga {coin} tahun {year}",
        "{alt} scam atau proyek bagus?",
        "Lupa seed phrase, apakah dompet masih bisa dipulihkan?",
        "Mining pakai {hw} di {year} masih untung?",
        "Penarikan di {exchange} tertahan {n} hari",
        "Dompet hardware mana yang paling aman?",
        "Diskusi halving {year}",
        "Pajak kripto di Indonesia",
        "[ANN] {alt} - platform terdesentralisasi untuk {niche}",
        "Tanya jawab untuk pemula seputar {coin}",
    ],
    openers: &[
        "Halo agan-agan semua, sudah lama jadi silent reader di forum ini.",
        "Mau berbagi pengalaman, semoga bermanfaat buat yang lain.",
        "Ringkasan singkat berita pasar minggu ini.",
        "Maaf kalau sudah pernah dibahas, saya sudah coba cari tapi tidak ketemu.",
        "Thread ini untuk diskusi seputar {alt}.",
        "Mohon bantuan dari para suhu, begini masalahnya.",
    ],
    sentences: &[
        "Jangan simpan koin terlalu lama di {exchange}, cukup untuk trading saja.",
        "Bukan kunci anda, bukan koin anda, itu aturan paling penting.",
        "Saya sudah pindahkan semua ke {wallet} dan menulis seed di pelat baja.",
        "{coin} turun {pct}% dalam dua hari, banyak yang panik jual di harga bawah.",
        "Dengan harga listrik sekarang, {hw} sudah tidak menguntungkan lagi.",
        "Developer {alt} tidak update GitHub sudah {n} bulan.",
        "Saya baca whitepaper lagi, tokennya tidak punya kegunaan nyata.",
        "Saya beli pertama kali di harga ${price} dan menyesal jual setengahnya.",
        "Beli rutin setiap minggu memang membosankan tapi hasilnya bagus jangka panjang.",
        "Kalau ada yang janji profit harian tetap, itu pasti skema Ponzi.",
        "Transaksi dengan fee {n} sat/vB belum terkonfirmasi sejak kemarin.",
        "Cek alamat dua kali, banyak malware yang mengganti isi clipboard.",
        "Kalau penjual tidak mau pakai escrow, lebih baik batalkan saja.",
        "Akun saya di {exchange} dibekukan dan diminta KYC ulang.",
        "Volume {alt} kelihatan palsu, cuma wash trading.",
        "Support di ${price} sudah bertahan tiga kali, semoga mantul.",
        "Kampanye signature bayarannya lumayan tapi manajernya ketat soal kualitas post.",
        "Sistem merit membuat spam di forum berkurang banyak.",
        "Kebanyakan altcoin dari tahun {year} sudah mati.",
        "Coba pakai Replace-By-Fee atau tunggu akhir pekan saat fee turun.",
        "Tim {alt} sudah burn {pct}% suplai tapi harga tetap diam.",
    ],
    short: &[
        "proyek yang bagus gan, semoga sukses",
        "setuju dengan agan",
        "terima kasih infonya",
        "kapan listing di {exchange}?",
        "menarik, pantau terus",
        "mantap gan",
    ],
    edits: &[
        "Edit: link sudah diperbaiki.",
        "Update: transaksi sudah terkonfirmasi setelah {n} jam.",
    ],
    link_intros: &["Info lengkap di sini:", "Sumber:", "Cek di explorer:"],
};
