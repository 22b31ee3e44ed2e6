//! Spanish phrase bank.

use super::Bank;

/// Spanish phrase bank.
pub(crate) const BANK: Bank = Bank {
    titles: &[
        "Predicción del precio de {coin} para {year}",
        "¿{alt} es una estafa o un buen proyecto?",
        "Perdí mi frase semilla, ¿puedo recuperar mis monedas?",
        "Minería con {hw} en {year}, ¿vale la pena?",
        "{exchange} no procesa retiros desde hace {n} días",
        "¿Qué billetera fría recomiendan?",
        "Impuestos sobre criptomonedas en España y Latinoamérica",
        "Hilo oficial del halving {year}",
        "Comisiones altas en la red de {coin}",
        "[ANN] {alt} - plataforma descentralizada de {niche}",
    ],
    openers: &[
        "Hola a todos, llevo tiempo leyendo el foro y hoy me animo a escribir.",
        "Quiero compartir mi experiencia por si a alguien le sirve.",
        "Resumen rápido de lo que pasó en el mercado esta semana.",
        "Perdón si ya se preguntó, busqué en el foro y no encontré nada.",
        "Este es el hilo para todo lo relacionado con {alt}.",
        "Les cuento mi situación, necesito consejo de los más experimentados.",
    ],
    sentences: &[
        "Nunca dejen sus monedas en {exchange} más tiempo del necesario.",
        "Si no son tus llaves, no son tus monedas, esa es la regla principal.",
        "Pasé todo a {wallet} y guardé las palabras en una placa de acero.",
        "{coin} cayó un {pct}% en dos días y muchos vendieron en pánico.",
        "Con la electricidad tan cara, {hw} ya no es rentable después del ajuste de dificultad.",
        "Los desarrolladores de {alt} no actualizan el repositorio desde hace {n} meses.",
        "Leí el whitepaper y el token no tiene ningún uso real.",
        "Compré mis primeras monedas a ${price} y me arrepiento de haber vendido la mitad.",
        "Comprar un poco cada semana es aburrido pero funciona a largo plazo.",
        "Quien promete ganancias fijas diarias está armando un esquema Ponzi.",
        "La transacción con {n} sat/vB sigue sin confirmar desde ayer.",
        "Revisen la dirección dos veces, hay malware que cambia el portapapeles.",
        "Si el vendedor no acepta un intermediario de confianza, mejor no comprar.",
        "{exchange} me congeló la cuenta y pide verificación otra vez.",
        "El volumen de {alt} es falso, son operaciones entre las mismas billeteras.",
        "El soporte en ${price} aguantó tres veces, espero un rebote.",
        "En mi país la inflación es tan alta que mucha gente ahorra en {coin}.",
        "Un nodo completo verifica cada bloque desde 2009.",
        "La mayoría de las altcoins de {year} ya desaparecieron.",
        "Prueben Replace-By-Fee o esperen al fin de semana cuando bajan las comisiones.",
        "El equipo de {alt} quemó el {pct}% del suministro y el precio no se movió.",
        "Mantengan actualizado el firmware de {wallet}.",
    ],
    short: &[
        "buen proyecto, éxitos al equipo",
        "totalmente de acuerdo",
        "gracias por la información",
        "¿cuándo sale en {exchange}?",
        "interesante, sigo el hilo",
        "excelente iniciativa",
    ],
    edits: &[
        "Editado: corregí el enlace.",
        "Actualización: ya se confirmó la transacción después de {n} horas.",
    ],
    link_intros: &[
        "Más información aquí:",
        "Fuente:",
        "Pueden verlo en el explorador:",
    ],
};
